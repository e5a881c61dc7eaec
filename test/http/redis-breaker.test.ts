// A Redis that hangs (SIGSTOP: it accepts and answers nothing) costs a few timeouts, not one per
// request; requests are served uncounted meanwhile; and what was sent to it before it froze is not
// counted when it wakes. Runs a redis-server of its own on a free port (skips without one).
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { protectedRoute, randomCredential, seedRestaurants } from '../modules/auth/support.ts';
import { buildTestApp } from '../support/app.ts';
import { freePort } from '../support/ports.ts';

const hasRedis = (() => {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = createServer().listen(port, '127.0.0.1');
      socket.once('listening', () => socket.close(() => resolve(false)));
      socket.once('error', () => resolve(true));
    });
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

test('a hung Redis', { skip: hasRedis ? false : 'redis-server is not installed' }, async (t) => {
  const port = await freePort();
  const redis = await startRedis(port);
  t.after(() => {
    redis.kill('SIGCONT');
    redis.kill('SIGKILL');
  });
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    config: { rateLimitPerMinute: 100, redisUrl: `redis://127.0.0.1:${port}` },
  });
  const [restaurant] = await seedRestaurants(ctx.db, 1);
  const auth = await randomCredential(ctx.db, restaurant);
  const call = async () => ({ res: await app.inject({ url: '/v1/test/whoami', headers: auth }) });

  const counted = async () => {
    for (let i = 0; i < 50; i++) {
      const { res } = await call();
      const remaining = res.headers['x-ratelimit-remaining'];
      if (remaining !== undefined) return Number(remaining);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('Redis never counted');
  };
  const before = await counted();

  const asked = t.mock.method(ctx.redis as unknown as Record<string, () => unknown>, 'rateLimitHit');
  redis.kill('SIGSTOP');
  const during = [];
  for (let i = 0; i < 12; i++) during.push(await call());
  assert.ok(
    during.every(({ res }) => res.statusCode === 200 && res.headers['x-ratelimit-remaining'] === undefined),
    'served, uncounted, while Redis hangs',
  );
  const asks = asked.mock.callCount();
  assert.ok(
    asks >= 1 && asks <= 3,
    `Redis is asked ${asks} times (at most 3), then no more until it answers`,
  );
  asked.mock.restore();

  // Redis stays frozen a while longer, as it does in an outage, then wakes with the commands that
  // timed out still in its socket.
  await new Promise((resolve) => setTimeout(resolve, 300));
  redis.kill('SIGCONT');
  assert.equal(
    await counted(),
    before - 1,
    'counting resumes, and nothing sent while Redis was frozen was applied when it woke',
  );
});
