import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { storeErrors } from '../../src/http/rate-limit.ts';
import { issueAccessToken } from '../../src/modules/auth/access-tokens.ts';
import { storeOAuthClient } from '../../src/modules/auth/oauth-clients.ts';
import {
  logCapture,
  postToken,
  protectedRoute,
  randomCredential,
  redisAnswers,
  seedRestaurants,
} from '../modules/auth/support.ts';
import { buildTestApp } from '../support/app.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

test('rate limits in memory', async (t) => {
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    config: { rateLimitPerMinute: 3, tokenRateLimitPerMinute: 2 },
  });
  const [r1] = await seedRestaurants(ctx.db, 1);

  await t.test(
    'a credential over its limit gets 429 rate_limited with Retry-After; others do not',
    async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      const busy = await randomCredential(ctx.db, r1);
      for (let i = 0; i < 3; i++) {
        const res = await app.inject({ url: '/v1/test/whoami', headers: busy });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['x-ratelimit-limit'], '3');
        assert.equal(res.headers['x-ratelimit-remaining'], String(2 - i));
      }
      const limited = await app.inject({ url: '/v1/test/whoami', headers: busy });
      assert.equal(limited.statusCode, 429);
      assert.deepEqual(Object.keys(limited.json()).sort(), ['key', 'message', 'statusCode']);
      assert.equal(limited.json().key, 'rate_limited');
      assert.ok(limited.headers['x-error-id']);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      const quiet = await randomCredential(ctx.db, r1);
      assert.equal((await app.inject({ url: '/v1/test/whoami', headers: quiet })).statusCode, 200);
      t.mock.timers.tick(61_000);
      assert.equal(
        (await app.inject({ url: '/v1/test/whoami', headers: busy })).statusCode,
        200,
        'a new window',
      );
    },
  );

  await t.test('an application counts per restaurant it was approved for, not once for all', async () => {
    const [r2] = await seedRestaurants(ctx.db, 1);
    const { id } = await storeOAuthClient(ctx.db, {
      clientId: 'pos-app',
      clientSecret: null,
      name: 'POS',
      scopes: ['products:read'],
      grantTypes: ['authorization_code'],
      restaurantIds: [r1, r2],
    });
    const tokenFor = async (restaurantId: number) => ({
      authorization: `Bearer ${await issueAccessToken(ctx.db, { oauthClientId: id, restaurantIds: [restaurantId], scopes: ['products:read'] }, 900)}`,
    });
    const [first, second] = [await tokenFor(r1), await tokenFor(r2)];
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await app.inject({ url: '/v1/test/whoami', headers: first })).statusCode);
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal((await app.inject({ url: '/v1/test/whoami', headers: second })).statusCode, 200);
  });

  await t.test('the token endpoint limits failed attempts per address, with an RFC-style 429', async () => {
    const byIp = (ip: string, clientId = `c-${randomUUID()}`) =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress: ip,
        payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=x`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    assert.equal((await byIp('10.0.0.1')).statusCode, 401);
    assert.equal((await byIp('10.0.0.1')).statusCode, 401);
    const limited = await byIp('10.0.0.1');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.json().error, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(limited.headers['cache-control'], 'no-store');
    assert.equal((await byIp('10.0.0.2')).statusCode, 401, 'another address has its own counter');
  });
});

test('rate limits shared by two instances through Redis', async (t) => {
  if (!(await redisAnswers(REDIS_URL))) {
    t.skip(`Redis does not answer at ${REDIS_URL}: shared counters not tested`);
    return;
  }
  const config = { rateLimitPerMinute: 3, tokenRateLimitPerMinute: 2, redisUrl: REDIS_URL };
  const a = await buildTestApp(t, { routes: protectedRoute, config });
  const b = await buildTestApp(t, { routes: protectedRoute, config, database: a.database });
  const [r1] = await seedRestaurants(a.ctx.db, 1);

  await t.test('requests to either instance count against one limit', async () => {
    const auth = await randomCredential(a.ctx.db, r1);
    const statuses = [];
    for (const app of [a.app, b.app, a.app, b.app]) {
      statuses.push((await app.inject({ url: '/v1/test/whoami', headers: auth })).statusCode);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const limited = await a.app.inject({ url: '/v1/test/whoami', headers: auth });
    assert.equal(limited.json().key, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
  });

  await t.test('token requests to either instance count against one limit', async () => {
    const remoteAddress = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const form = { grant_type: 'client_credentials', client_id: `c-${randomUUID()}`, client_secret: 'x' };
    const statuses = [];
    for (const app of [a.app, b.app, a.app]) {
      const res = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress,
        payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      statuses.push(res.statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 429]);
  });
});

test('Redis unreachable: requests are allowed (fail open) and a warning is logged', async (t) => {
  const { logStream, text } = logCapture();
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    logStream,
    config: { rateLimitPerMinute: 1, redisUrl: 'redis://127.0.0.1:1', logLevel: 'warn' },
  });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const auth = await randomCredential(ctx.db, r1);
  const before = (await storeErrors.get()).values.reduce((sum, v) => sum + v.value, 0);
  for (let i = 0; i < 3; i++) {
    const res = await app.inject({ url: '/v1/test/whoami', headers: auth });
    assert.equal(res.statusCode, 200, 'never a 429 nor a 500 while the store is down');
    assert.equal(res.headers['x-ratelimit-limit'], undefined);
  }
  const token = await postToken(app, { grant_type: 'api_key', api_key: 'ck_test_wrong' });
  assert.equal(token.statusCode, 401, 'the token endpoint keeps answering');
  const after = (await storeErrors.get()).values.reduce((sum, v) => sum + v.value, 0);
  assert.equal(after - before, 4, 'rate_limit_store_errors_total counts each unchecked request');
  assert.ok(text().includes('rate limit store (Redis) unavailable'), text());
});
