// The console cookie (a restaurant session, HttpOnly, SameSite=Strict, Secure over HTTPS), the
// staff member it stands for, and the CSRF defences of every form: a per-session token in a
// hidden field (an HMAC of the session id, so nothing is stored) plus an Origin check.
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { safeEqual } from '../../lib/secrets.ts';
import { verifySession } from '../auth/session-token.ts';
import { findLiveSession, type RestaurantRef, restaurantsOf } from './staff-repository.ts';
import { CONSOLE_SESSION_TTL_SECONDS } from './staff-service.ts';

export const SESSION_COOKIE = 'comanda_console';
const LOGIN_COOKIE = 'comanda_login';

export type Staff = {
  sessionId: string;
  staffUserId: number;
  email: string;
  mustChangePassword: boolean;
  restaurant: RestaurantRef;
  restaurants: RestaurantRef[];
  csrf: string;
};

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function setCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  name: string,
  value: string,
  maxAge: number,
) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'set-cookie',
    `${name}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secure}`,
  );
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  setCookie(request, reply, SESSION_COOKIE, token, CONSOLE_SESSION_TTL_SECONDS);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  setCookie(request, reply, SESSION_COOKIE, '', 0);
}

function csrfFor(secret: string, sessionId: string): string {
  return createHmac('sha256', secret).update(`console-csrf:${sessionId}`).digest('base64url');
}

/** The signed-in staff member of the cookie: a valid restaurant session whose sign-in is live. */
export async function loadStaff(ctx: AppContext, request: FastifyRequest): Promise<Staff | null> {
  const token = readCookie(request, SESSION_COOKIE);
  const claims = token ? verifySession(token, ctx.secrets.sessionSecret) : null;
  if (!claims) return null;
  const row = await findLiveSession(ctx.db, claims.jti, claims.restaurant_id, new Date());
  if (!row) return null;
  const restaurants = await restaurantsOf(ctx.db, row.staff_user_id);
  const restaurant = restaurants.find((r) => r.id === claims.restaurant_id);
  if (!restaurant) return null;
  return {
    sessionId: claims.jti,
    staffUserId: row.staff_user_id,
    email: row.email,
    mustChangePassword: row.must_change_password,
    restaurant,
    restaurants,
    csrf: csrfFor(ctx.secrets.sessionSecret, claims.jti),
  };
}

/** The sign-in form's token before any session exists: double-submitted (cookie and field). */
export function loginCsrf(request: FastifyRequest, reply: FastifyReply): string {
  const current = readCookie(request, LOGIN_COOKIE);
  if (current && /^[A-Za-z0-9_-]{43}$/.test(current)) return current;
  const fresh = randomBytes(32).toString('base64url');
  setCookie(request, reply, LOGIN_COOKIE, fresh, 3600);
  return fresh;
}

export function csrfMatches(request: FastifyRequest, form: URLSearchParams, staff: Staff | null): boolean {
  const expected = staff ? staff.csrf : readCookie(request, LOGIN_COOKIE);
  const sent = form.get('csrf');
  return !!expected && !!sent && safeEqual(sent, expected);
}

/** A browser names the page a form was sent from (Origin, else Referer): it must be this host.
 * The scheme is not compared: behind a TLS proxy the request itself may arrive as http. */
export function sameOrigin(request: FastifyRequest): boolean {
  const named = request.headers.origin ?? request.headers.referer;
  if (named === undefined) return true;
  try {
    const url = new URL(named);
    const web = url.protocol === 'http:' || url.protocol === 'https:';
    return web && url.host === new URL(`${url.protocol}//${request.host}`).host;
  } catch {
    return false;
  }
}
