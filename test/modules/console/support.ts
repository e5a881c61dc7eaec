// Helpers of the console tests: a restaurant world with staff, and a tiny cookie-keeping client
// over app.inject that reads the CSRF token from the pages it gets.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Db } from '../../../src/db/database.ts';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { createStaffUser } from '../../../src/modules/console/staff-service.ts';

export const PASSWORD = 'correct horse battery';
export const ORIGIN = 'http://localhost:80';
export const REDIRECT = 'https://pos.example/callback';

export async function seedRestaurants(db: Db, names: string[]): Promise<number[]> {
  const rows = await db
    .insertInto('restaurants')
    .values(names.map((name) => ({ name })))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** A staff member with PASSWORD, or (password null) with a generated one-time password. */
export async function addStaff(
  db: Db,
  email: string,
  restaurantIds: number[],
  password: string | null = PASSWORD,
) {
  return createStaffUser(db, { email, restaurantIds, password: password ?? undefined });
}

/** A public PKCE application, installed nowhere unless `restaurantIds` says so. */
export async function addPublicApp(db: Db, clientId: string, name: string, restaurantIds: number[] = []) {
  return storeOAuthClient(db, {
    clientId,
    clientSecret: null,
    name,
    scopes: ['products:read', 'menu:read'],
    grantTypes: ['authorization_code'],
    redirectUris: [REDIRECT],
    restaurantIds,
  });
}

export function csrfOf(body: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(body);
  assert.ok(match, 'the page has a CSRF field');
  return match[1];
}

/** Headers given as undefined are left out (a browser that sends no Origin). */
function withoutUnset(headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}

/** A browser-like client: keeps cookies, sends Origin on POST, posts url-encoded forms. */
export class Visitor {
  readonly app: FastifyInstance;
  readonly remoteAddress: string | undefined;
  cookies = new Map<string, string>();
  constructor(app: FastifyInstance, remoteAddress?: string) {
    this.app = app;
    this.remoteAddress = remoteAddress;
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    const set = res.headers['set-cookie'];
    for (const line of [set ?? []].flat()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1);
      if (/Max-Age=0/i.test(line) || !value) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), value);
    }
    return res;
  }

  cookieHeader(): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return cookie ? { cookie } : {};
  }

  async get(url: string, headers: Record<string, string> = {}) {
    const remote = this.remoteAddress ? { remoteAddress: this.remoteAddress } : {};
    return this.keep(
      await this.app.inject({
        method: 'GET',
        url,
        headers: { accept: 'text/html', ...this.cookieHeader(), ...headers },
        ...remote,
      }),
    );
  }

  async post(
    url: string,
    form: Record<string, string | string[]>,
    headers: Record<string, string | undefined> = {},
  ) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one);
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        payload: body.toString(),
        ...(this.remoteAddress ? { remoteAddress: this.remoteAddress } : {}),
        headers: withoutUnset({
          'content-type': 'application/x-www-form-urlencoded',
          origin: ORIGIN,
          ...this.cookieHeader(),
          ...headers,
        }),
      }),
    );
  }

  /** Gets `page` and posts `form` to `action` with the page's CSRF token. */
  async submit(page: string, action: string, form: Record<string, string | string[]>) {
    const csrf = csrfOf((await this.get(page)).body);
    return this.post(action, { csrf, ...form });
  }

  async signIn(email: string, password = PASSWORD, next?: string) {
    return this.submit('/console/login', '/console/login', { email, password, ...(next ? { next } : {}) });
  }
}
