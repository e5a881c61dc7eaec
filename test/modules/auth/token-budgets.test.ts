import assert from 'node:assert/strict';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../../../src/config.ts';
import { MAX_MEMORY_WINDOWS, memoryLimiter } from '../../../src/http/rate-limit.ts';
import { storeApiKey } from '../../../src/modules/auth/api-keys.ts';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { buildTestApp } from '../../support/app.ts';
import { redisAnswers, seedRestaurants } from './support.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const LIMIT = 60;

/** An address no earlier run used, so counters left in a shared Redis never collide. */
const freshAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function post(app: FastifyInstance, address: string, form: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress: address,
    payload: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

async function statusesOf(requests: (() => Promise<{ statusCode: number }>)[]): Promise<number[]> {
  const statuses = [];
  for (const request of requests) statuses.push((await request()).statusCode);
  return statuses;
}

function budgetTests(store: string, config: Partial<Config>) {
  test(`token endpoint budgets (${store})`, async (t) => {
    const { app, ctx } = await buildTestApp(t, { config: { tokenRateLimitPerMinute: LIMIT, ...config } });
    const [r1] = await seedRestaurants(ctx.db, 1);
    const secret = randomUUID();
    await storeOAuthClient(ctx.db, {
      clientId: 'erp',
      name: 'ERP',
      clientSecret: secret,
      restaurantIds: [r1],
      redirectUris: [],
      scopes: ['menu:read'],
      grantTypes: ['client_credentials'],
    });
    const guess =
      (address: string, clientId: string, grantType = 'client_credentials') =>
      () =>
        post(app, address, { grant_type: grantType, client_id: clientId, client_secret: 'wrong' });

    await t.test('a new forged client_id on every request meets a 429 from the address budget', async () => {
      const address = freshAddress();
      const requests = Array.from({ length: LIMIT + 1 }, () => guess(address, `c-${randomUUID()}`));
      const statuses = await statusesOf(requests);
      assert.deepEqual(statuses.slice(0, LIMIT), Array(LIMIT).fill(401));
      const limited = await guess(address, `c-${randomUUID()}`)();
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) >= 1);
    });

    await t.test('60 KB client_ids meet the same 429 and never become limiter keys', async (t) => {
      const keys: string[] = [];
      const hit = app.rateLimits.token.hit.bind(app.rateLimits.token);
      t.mock.method(app.rateLimits.token, 'hit', (key: string) => {
        keys.push(key);
        return hit(key);
      });
      const address = freshAddress();
      const huge = () => guess(address, randomBytes(30 * 1024).toString('hex'));
      const statuses = await statusesOf(Array.from({ length: LIMIT + 1 }, huge));
      assert.equal(statuses.at(-1), 429);
      assert.ok(statuses.slice(0, LIMIT).every((s) => s === 401));
      assert.ok(Math.max(...keys.map((k) => k.length)) <= 128, 'limiter keys stay short');
    });

    await t.test('the addresses of one IPv6 /64 share one address budget', async () => {
      const group = () => randomInt(65536).toString(16);
      const network = `2001:db8:${group()}:${group()}`;
      const hosts = Array.from({ length: LIMIT }, (_, i) => guess(`${network}:${i.toString(16)}::1`, 'erp'));
      assert.deepEqual(await statusesOf(hosts), Array(LIMIT).fill(401));
      assert.equal((await guess(`${network}:ffff:1:2:3`, 'erp')()).statusCode, 429, 'a new host of the /64');
      const neighbour = `2001:db8:${group()}:${group()}::1`;
      assert.equal((await guess(neighbour, 'erp')()).statusCode, 401, 'another /64 has its own budget');
    });

    await t.test('an IPv4-mapped IPv6 address is counted as its IPv4 address', async () => {
      const address = freshAddress();
      await statusesOf(Array.from({ length: LIMIT }, () => guess(address, 'erp')));
      assert.equal((await guess(`::ffff:${address}`, 'erp')()).statusCode, 429);
    });

    await t.test('60 wrong secrets for erp do not lock the real erp client out', async () => {
      const attacker = freshAddress();
      await statusesOf(Array.from({ length: LIMIT }, () => guess(attacker, 'erp')));
      assert.equal((await guess(attacker, 'erp')()).statusCode, 429, 'the guesser is throttled');
      const real = await post(app, freshAddress(), {
        grant_type: 'client_credentials',
        client_id: 'erp',
        client_secret: secret,
      });
      assert.equal(real.statusCode, 200, real.body);
    });

    await t.test('200 exchanges of 200 different keys from one address in a minute get no 429', async () => {
      const keys = [];
      for (let i = 0; i < 200; i++) {
        const id = randomInt(1_000_000, 2_000_000_000);
        keys.push((await storeApiKey(ctx.db, { id, restaurantIds: [r1], scopes: ['menu:read'] })).api_key);
      }
      const address = freshAddress();
      const statuses = await statusesOf(
        keys.map((key) => () => post(app, address, { grant_type: 'api_key', api_key: key })),
      );
      assert.deepEqual(statuses, Array(200).fill(200));
      assert.equal((await guess(address, 'erp')()).statusCode, 401, 'the address budget is untouched');
    });

    await t.test('a proven credential spends its own budget, whatever the address', async () => {
      const id = randomInt(1_000_000, 2_000_000_000);
      const { api_key: apiKey } = await storeApiKey(ctx.db, {
        id,
        restaurantIds: [r1],
        scopes: ['menu:read'],
      });
      const exchange = () => post(app, freshAddress(), { grant_type: 'api_key', api_key: apiKey });
      const statuses = await statusesOf(Array.from({ length: LIMIT + 1 }, () => exchange));
      assert.deepEqual(statuses, [...Array(LIMIT).fill(200), 429]);
    });

    await t.test('a refresh refused by its credential budget leaves the refresh token usable', async () => {
      const id = randomInt(1_000_000, 2_000_000_000);
      const { api_key: apiKey } = await storeApiKey(ctx.db, {
        id,
        restaurantIds: [r1],
        scopes: ['menu:read'],
      });
      const first = await post(app, freshAddress(), { grant_type: 'api_key', api_key: apiKey });
      for (let i = 1; i < LIMIT; i++)
        await post(app, freshAddress(), { grant_type: 'api_key', api_key: apiKey });
      const refresh = () =>
        post(app, freshAddress(), { grant_type: 'refresh_token', refresh_token: first.json().refresh_token });
      assert.equal((await refresh()).statusCode, 429);
      // The refused request counted too: two given back make room for one.
      const { windowEnd } = (await app.rateLimits.token.peek(`api_key:${id}`))!;
      for (let i = 0; i < 2; i++) await app.rateLimits.token.refund(`api_key:${id}`, windowEnd);
      const later = await refresh();
      assert.equal(later.statusCode, 200, later.body);
    });
  });
}

budgetTests('memory', {});
if (await redisAnswers(REDIS_URL)) budgetTests('Redis', { redisUrl: REDIS_URL });
else test('token endpoint budgets (Redis)', (t) => t.skip(`Redis does not answer at ${REDIS_URL}`));

test('the memory limiter holds at most MAX_MEMORY_WINDOWS windows, dropping the oldest', async () => {
  const limiter = memoryLimiter(1);
  for (let i = 0; i <= MAX_MEMORY_WINDOWS; i++) await limiter.hit(`address:${i}`);
  assert.equal((await limiter.hit(`address:${MAX_MEMORY_WINDOWS}`))?.allowed, false, 'the newest is kept');
  assert.equal((await limiter.hit('address:0'))?.allowed, true, 'the oldest was dropped');
});

test('a refund gives back one request of the current window and never outlives it', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const limiter = memoryLimiter(1);
  const first = (await limiter.hit('address:a'))!;
  await limiter.refund('address:a', first.windowEnd);
  const second = (await limiter.hit('address:a'))!;
  assert.equal(second.allowed, true);
  t.mock.timers.tick(61_000);
  await limiter.refund('address:a', second.windowEnd);
  assert.equal((await limiter.hit('address:a'))?.allowed, true);
  assert.equal((await limiter.hit('address:a'))?.allowed, false);
});

test('a refund that arrives after its window ended gives nothing to the next window (memory)', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
  const limiter = memoryLimiter(1);
  // A proven request counted at the end of one window is refunded after it ended...
  const counted = (await limiter.hit('address:a'))!;
  t.mock.timers.tick(61_000);
  // ...when a guesser has already spent the next window's one request.
  assert.equal((await limiter.hit('address:a'))?.allowed, true);
  await limiter.refund('address:a', counted.windowEnd);
  assert.equal((await limiter.hit('address:a'))?.allowed, false, 'the refund did not open the new window');
});

test('a refund that arrives after its window ended gives nothing to the next window (Redis)', async (t) => {
  if (!(await redisAnswers(REDIS_URL))) return t.skip(`Redis does not answer at ${REDIS_URL}`);
  const { app, ctx } = await buildTestApp(t, { config: { tokenRateLimitPerMinute: 1, redisUrl: REDIS_URL } });
  await app.ready();
  // Called directly, the limiter fails open until its connection is up: wait for it.
  if (ctx.redis?.status !== 'ready') await once(ctx.redis!, 'ready');
  const limiter = app.rateLimits.token;
  const key = `address:${randomUUID()}`;
  const counted = (await limiter.hit(key))!;
  assert.ok(counted.allowed);
  const redis = new Redis(REDIS_URL);
  t.after(() => redis.disconnect());
  // The window ended and the next one began (ending a minute after it) with a guesser's request:
  // what Redis holds then, made without waiting the minute.
  await redis.set(`comanda:rl:token:${key}`, '1', 'PX', 120_000);
  await limiter.refund(key, counted.windowEnd);
  assert.equal((await limiter.hit(key))?.allowed, false, 'the refund did not open the new window');
  // A refund in its own window still gives back.
  const key2 = `address:${randomUUID()}`;
  const own = (await limiter.hit(key2))!;
  await limiter.refund(key2, own.windowEnd);
  assert.equal((await limiter.hit(key2))?.allowed, true, 'a refund in its window gives back');
});
