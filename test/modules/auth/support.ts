// Helpers of the authentication tests: restaurants, credentials and token requests.

import { randomInt } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Db } from '../../../src/db/database.ts';
import { SCOPES } from '../../../src/http/principal.ts';
import { issueAccessToken } from '../../../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../../../src/modules/auth/api-keys.ts';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';

export async function seedRestaurants(db: Db, count: number): Promise<number[]> {
  const rows = await db
    .insertInto('restaurants')
    .values(Array.from({ length: count }, (_, i) => ({ name: `Restaurant ${i + 1}` })))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function newKey(
  db: Db,
  restaurantIds: number[],
  scopes: string[] = SCOPES,
  environment?: 'live' | 'test',
) {
  return storeApiKey(db, { name: 'integration', restaurantIds, scopes, environment });
}

export function postToken(
  app: FastifyInstance,
  form: Record<string, string> | string,
  headers: Record<string, string> = {},
) {
  const payload = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

/** A route that needs `scope` and answers who called and for which restaurant. */
export function protectedRoute(app: FastifyInstance): void {
  app.get(
    '/v1/test/whoami',
    {
      config: { scope: 'products:read' },
      schema: {
        querystring: {
          type: 'object',
          properties: { restaurant_id: { type: 'integer' } },
        },
      },
    },
    async (request) => ({ restaurant_id: request.restaurantId, kind: request.principal?.kind }),
  );
  app.get('/v1/test/menu', { config: { scope: 'menu:read' } }, async (request) => ({
    restaurant_id: request.restaurantId,
  }));
}

export const REDIRECT_URI = 'https://pos.example/callback';

/** `erp`, a confidential client_credentials client, and `pos-app`, a public PKCE application. */
export async function seedClients(
  db: Db,
  restaurantIds: number[],
  secret: string,
  scopes = ['products:read', 'menu:read'],
) {
  const common = { name: 'app', restaurantIds, scopes, redirectUris: [REDIRECT_URI] };
  await storeOAuthClient(db, {
    ...common,
    clientId: 'erp',
    clientSecret: secret,
    grantTypes: ['client_credentials'],
  });
  await storeOAuthClient(db, {
    ...common,
    clientId: 'pos-app',
    clientSecret: null,
    grantTypes: ['authorization_code'],
  });
}

/** A log stream for buildTestApp that keeps every line. */
export function logCapture(): { logStream: Writable; text: () => string } {
  const lines: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logStream, text: () => lines.join('') };
}

/** A credential with a random key id, so counters of earlier runs in a shared Redis never collide. */
export async function randomCredential(db: Db, restaurantId: number) {
  const id = randomInt(1_000_000, 2_000_000_000);
  const scopes = ['products:read'];
  await storeApiKey(db, { id, restaurantIds: [restaurantId], scopes });
  const token = await issueAccessToken(db, { apiKeyId: id, restaurantIds: [restaurantId], scopes }, 900);
  return { authorization: `Bearer ${token}` };
}

/** Whether the Redis of `url` answers a PING (tests that need it skip otherwise). */
export async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 500,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}
