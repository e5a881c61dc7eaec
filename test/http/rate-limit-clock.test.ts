// The Redis limiter and a clock that moves: a count Redis refuses as late is a store failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { protectedRoute, randomCredential, redisAnswers, seedRestaurants } from '../modules/auth/support.ts';
import { buildTestApp } from '../support/app.ts';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

test('the process clock stepped back by seconds does not stop the Redis limiter from counting', async (t) => {
  if (!(await redisAnswers(REDIS_URL))) {
    t.skip(`Redis does not answer at ${REDIS_URL}`);
    return;
  }
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    config: { rateLimitPerMinute: 3, redisUrl: REDIS_URL },
  });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const auth = await randomCredential(ctx.db, r1);
  assert.equal((await app.inject({ url: '/v1/test/whoami', headers: auth })).statusCode, 200);
  // An NTP step: the process' clock is now 5 s behind Redis', and the offset measured at connect
  // is out of date.
  const realNow = Date.now;
  t.mock.method(Date, 'now', () => realNow() - 5000);
  const statuses: number[] = [];
  const started = realNow();
  while (realNow() - started < 5000 && !statuses.includes(429)) {
    statuses.push((await app.inject({ url: '/v1/test/whoami', headers: auth })).statusCode);
    await sleep(100);
  }
  assert.ok(statuses.includes(429), `never limited: ${statuses.join(' ')}`);
  assert.ok(
    statuses.every((s) => s === 200 || s === 429),
    statuses.join(' '),
  );
});
