import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { SIGN_IN_LIMITS, signInLimiter } from '../../../src/modules/console/sign-in-limiter.ts';
import { buildTestApp } from '../../support/app.ts';
import { addStaff, PASSWORD, seedRestaurants, Visitor } from './support.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

async function redisClient(): Promise<Redis | null> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 500,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    return redis;
  } catch {
    redis.disconnect();
    return null;
  }
}

test('failed sign-ins are counted across instances through Redis', async (t) => {
  const redis = await redisClient();
  if (!redis) {
    t.skip(`Redis does not answer at ${REDIS_URL}: shared sign-in counters not tested`);
    return;
  }
  const email = `staff-${randomUUID()}@example.com`;
  const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  t.after(async () => {
    await redis.del(`comanda:signin:account:${email}`, `comanda:signin:address:${address}`);
    redis.disconnect();
  });
  const a = await buildTestApp(t, { config: { redisUrl: REDIS_URL } });
  const b = await buildTestApp(t, { config: { redisUrl: REDIS_URL }, database: a.database });
  const [bella] = await seedRestaurants(a.ctx.db, ['Cantina Bella']);
  await addStaff(a.ctx.db, email, [bella]);
  const statuses: number[] = [];
  for (let i = 0; i <= SIGN_IN_LIMITS.account; i++) {
    const app = i % 2 ? b.app : a.app;
    statuses.push(
      (
        await new Visitor(app, address).signIn(
          email,
          i < SIGN_IN_LIMITS.account ? 'wrong password' : PASSWORD,
        )
      ).statusCode,
    );
  }
  assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
  assert.ok(Number(await redis.pttl(`comanda:signin:account:${email}`)) > 14 * 60_000);
});

test('with Redis unreachable, failed sign-ins are still limited in this process', async (t) => {
  const { app, ctx } = await buildTestApp(t, {
    config: { redisUrl: 'redis://127.0.0.1:1', logLevel: 'silent' },
  });
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  for (let i = 0; i < SIGN_IN_LIMITS.account; i++) {
    assert.equal((await new Visitor(app).signIn('ana@example.com', 'wrong password')).statusCode, 401);
  }
  assert.equal((await new Visitor(app).signIn('ana@example.com')).statusCode, 429);
});

test('a huge email is counted under a bounded key, so a flood of them cannot fill memory or Redis', async () => {
  const keys: string[] = [];
  const counts = new Map<string, number>();
  const fakeRedis = {
    on: () => fakeRedis,
    once: () => fakeRedis,
    time: async () => [String(Math.floor(Date.now() / 1000)), '0'],
    eval: async (script: string, _n: number, key: string) => {
      keys.push(key);
      if (!script.includes('INCR')) return 0;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      return [counts.get(key), 900_000];
    },
    del: async (key: string) => {
      keys.push(key);
      counts.delete(key);
      return 1;
    },
  } as unknown as Redis;
  const limiter = signInLimiter(fakeRedis);
  const huge = `${'a'.repeat(30_000)}@example.com`;
  for (let i = 0; i < SIGN_IN_LIMITS.account; i++)
    assert.equal(await limiter.attempt(huge, '198.51.100.7'), 0);
  assert.ok((await limiter.attempt(huge, '198.51.100.8')) > 0, 'the same huge email is still limited');
  await limiter.attempt(`${'b'.repeat(30_000)}@example.com`, '198.51.100.9');
  assert.ok(keys.length > 0);
  assert.ok(
    keys.every((key) => key.length < 300),
    `every key is short (longest: ${Math.max(...keys.map((k) => k.length))})`,
  );
  await limiter.attempt('ana@example.com', '198.51.100.7');
  assert.ok(keys.includes('comanda:signin:account:ana@example.com'), 'a real email keeps its readable key');
});
