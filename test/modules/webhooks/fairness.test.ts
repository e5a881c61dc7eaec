import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { eventsWorld, worldWorker } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

test("a receiver that never answers holds none of another endpoint's deliveries back, and only a few slots once failing", async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  // Restaurant A's receiver takes every request and never answers; B's answers at once.
  const answered: number[] = [];
  let hanging = 0;
  let mostHanging = 0;
  receiver.respond = (req, res) => {
    if (req.url === '/ok') {
      answered.push(Date.now());
      res.writeHead(204).end();
      return;
    }
    mostHanging = Math.max(mostHanging, ++hanging);
    res.on('close', () => hanging--);
  };
  for (const [restaurant, path] of [
    [world.restaurant, '/silent'],
    [world.other, '/ok'],
  ] as const) {
    const res = await world.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization: await world.bearer(undefined, [restaurant]) },
      payload: { url: receiver.url(path), events: ['product.updated'] },
    });
    assert.equal(res.statusCode, 201, res.body);
  }
  const events = (restaurant: number, n: number) =>
    recordEvents(
      world.db,
      Array.from({ length: n }, (_, i) => ({
        restaurant_id: restaurant,
        type: 'product.updated' as const,
        data: { product_id: i },
      })),
    );
  const timeoutMs = 1_000;
  const worker = worldWorker(t, world, { timeoutMs });

  // A bulk edit of A: more deliveries than a worker sends at once, all to the silent receiver.
  await events(world.restaurant, 60);
  worker.start();
  const silent = () => receiver.received.filter((r) => r.path === '/silent').length;
  while (silent() === 0) await sleep(10);
  await sleep(100);

  // An edit of B while A's attempts hang: its delivery goes out at once, not after them.
  const written = Date.now();
  await events(world.other, 1);
  while (!answered.length && Date.now() - written < 4 * timeoutMs) await sleep(10);
  assert.equal(answered.length, 1, "B's delivery was not sent");
  const waited = answered[0] - written;
  assert.ok(waited < timeoutMs / 2, `B's delivery waited ${waited} ms behind A's silent receiver`);

  // Once its attempts have failed, A's endpoint has two attempts in flight at most, not a batch.
  while (silent() <= 20) await sleep(10);
  mostHanging = hanging;
  await sleep(3 * timeoutMs);
  assert.ok(silent() > 22, `the rest of A's deliveries are attempted (${silent()})`);
  assert.ok(mostHanging <= 2, `${mostHanging} attempts at once to a failing endpoint`);
  // Stopped before the database closes (the test's other after-hooks).
  await worker.stop();
});
