// One app per test file on the security world, with a local fiscal provider and every kind of
// credential the route matrix and the property tests need.
import assert from 'node:assert/strict';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Config } from '../../src/config.ts';
import { startFiscalSimulator } from '../../src/fiscal-simulator/fiscal-simulator.ts';
import { importData } from '../../src/import/import.ts';
import { issueAccessToken } from '../../src/modules/auth/access-tokens.ts';
import { revokeApiKey, storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { buildTestApp, type TestApp } from '../support/app.ts';
import { bearerFor } from '../support/tokens.ts';
import { ALL_SCOPES, OTHER_MARKER, providerNotes, securityWorld, type WorldIds, worldIds } from './world.ts';

export type SecurityApp = TestApp & {
  ids: WorldIds;
  /** Authorization header values for restaurant A. */
  auth: { all: string; session: string; without: (scope: string) => Promise<string> };
  /** Bearer values that must all be refused with 401. */
  refused: Record<string, string>;
  otherSession: string;
};

export async function securityApp(
  t: { after(fn: () => unknown): void },
  config: Partial<Config> = {},
): Promise<SecurityApp> {
  const ids = worldIds();
  const provider = await startFiscalSimulator({
    notes: providerNotes() as never,
    tokens: new Set([ids.a.fiscalToken, ids.b.fiscalToken]),
  });
  t.after(() => provider.close());
  const built = await buildTestApp(t, {
    config: {
      fiscalProviderUrl: provider.url,
      fiscalTimeoutMs: 2000,
      rateLimitPerMinute: 1_000_000,
      tokenRateLimitPerMinute: 1_000_000,
      ...config,
    },
  });
  const { db, secrets } = built.ctx;
  await importData(db, securityWorld(ids), { fiscalTokenKey: secrets.fiscalTokenKey });
  const a = [ids.a.restaurant];
  const all = (await bearerFor(db, a, ALL_SCOPES)).authorization;
  const refused = await refusedCredentials(built.app, db, ids, secrets.sessionSecret);
  return {
    ...built,
    ids,
    auth: {
      all,
      session: `Bearer ${signSession(ids.a.restaurant, 3600, secrets.sessionSecret)}`,
      without: async (scope) =>
        (
          await bearerFor(
            db,
            a,
            ALL_SCOPES.filter((s) => s !== scope),
          )
        ).authorization,
    },
    refused,
    otherSession: `Bearer ${signSession(ids.b.restaurant, 3600, secrets.sessionSecret)}`,
  };
}

async function refusedCredentials(
  app: FastifyInstance,
  db: TestApp['ctx']['db'],
  ids: WorldIds,
  sessionSecret: string,
): Promise<Record<string, string>> {
  const exchange = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: `grant_type=api_key&api_key=${ids.a.apiKey}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(exchange.statusCode, 200, exchange.body);
  const grant = { restaurantIds: [ids.a.restaurant], scopes: ALL_SCOPES };
  const hourAgo = new Date(Date.now() - 3600_000);
  const revokedKey = await storeApiKey(db, { name: 'revoked', ...grant, environment: 'test' });
  const revoked = await issueAccessToken(db, { apiKeyId: revokedKey.id, ...grant }, 900);
  await revokeApiKey(db, revokedKey.id);
  const liveKey = await storeApiKey(db, { name: 'expired', ...grant, environment: 'test' });
  return {
    'no credential': '',
    'an API key as bearer': `Bearer ${ids.a.apiKey}`,
    'a refresh token as bearer': `Bearer ${exchange.json().refresh_token}`,
    'an expired access token': `Bearer ${await issueAccessToken(db, { apiKeyId: liveKey.id, ...grant }, 900, hourAgo)}`,
    "a revoked key's access token": `Bearer ${revoked}`,
    'an unknown access token': 'Bearer cat_unknownunknownunknownunknownunknown',
    'an expired session': `Bearer ${signSession(ids.a.restaurant, 60, sessionSecret, hourAgo.getTime())}`,
    'a session signed with another secret': `Bearer ${signSession(ids.a.restaurant, 3600, 'x'.repeat(40))}`,
    'a Basic header': `Basic ${Buffer.from(`${ids.a.apiKey}:`).toString('base64')}`,
    'a malformed bearer': 'Bearer a b c',
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INTERNALS =
  /\bat [\w.<>]+ \(|node:internal|\.ts:\d+|\/work\/|\bselect\s.+\sfrom\b|\binsert into\b|\bupdate\s+\w+\s+set\b|syntax error at|violates .* constraint|\bpg_|relation "/i;

/** Every answer: no internals, no data of restaurant B, the error model on every error. */
export function assertWellFormed(res: LightMyRequestResponse, context: string, oauth = false): void {
  const where = `${context} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
  assert.ok(res.statusCode < 500 || res.statusCode === 502 || res.statusCode === 503, where);
  assert.doesNotMatch(res.body, INTERNALS, where);
  assert.ok(!res.body.includes(OTHER_MARKER), `data of restaurant B leaked: ${where}`);
  if (res.statusCode < 400) return;
  const body = res.json();
  if (oauth) {
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description'], where);
    assert.equal(res.headers['cache-control'], 'no-store', where);
  } else {
    const allowed = new Set(['statusCode', 'message', 'key', 'errors', 'conflicts']);
    assert.ok(
      Object.keys(body).every((k) => allowed.has(k)),
      where,
    );
    assert.equal(body.statusCode, res.statusCode, where);
    assert.equal(typeof body.key, 'string', where);
    assert.equal(typeof body.message, 'string', where);
  }
  assert.match(String(res.headers['x-error-id']), UUID, where);
}
