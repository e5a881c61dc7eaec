import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { createEndpoint, type EventsWorld, eventsWorld, worldWorker } from '../../support/events-world.ts';
import { type Receiver, startReceiver } from '../../support/receiver.ts';

/** An endpoint of `restaurant` for product.updated, delivering to `path` on the receiver. */
const endpoint = async (world: EventsWorld, receiver: Receiver, restaurant: number, path: string) =>
  createEndpoint(world, receiver.url(path), { authorization: await world.bearer(undefined, [restaurant]) });

/** `n` product.updated events of `restaurant`. */
const events = (world: EventsWorld, restaurant: number, n: number) =>
  recordEvents(
    world.db,
    Array.from({ length: n }, (_, i) => ({
      restaurant_id: restaurant,
      type: 'product.updated' as const,
      data: { product_id: i },
    })),
  );

test("a receiver that never answers holds none of another endpoint's deliveries back, and only a few slots once failing", async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver(t);
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
  await endpoint(world, receiver, world.restaurant, '/silent');
  await endpoint(world, receiver, world.other, '/ok');
  const timeoutMs = 1_000;
  const worker = worldWorker(t, world, { timeoutMs });

  // A bulk edit of A: more deliveries than a worker sends at once, all to the silent receiver.
  await events(world, world.restaurant, 60);
  worker.start();
  const silent = () => receiver.received.filter((r) => r.path === '/silent').length;
  while (silent() === 0) await sleep(10);
  await sleep(100);

  // An edit of B while A's attempts hang: its delivery goes out at once, not after them.
  const written = Date.now();
  await events(world, world.other, 1);
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

test("a restaurant whose many endpoints hang holds its share of the instance's slots, not all of them", async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver(t);
  // Restaurant A's receivers take every request and answer only when released; B's answers at once.
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  let hanging = 0;
  let mostHanging = 0;
  let answeredB = 0;
  receiver.respond = (req, res) => {
    if (req.url === '/ok') {
      answeredB++;
      res.writeHead(204).end();
      return;
    }
    mostHanging = Math.max(mostHanging, ++hanging);
    res.on('close', () => hanging--);
    void released.then(() => res.writeHead(204).end());
  };
  // Four endpoints of A, each under its own cap (the batch), together more than the instance's slots.
  for (const path of ['/a1', '/a2', '/a3', '/a4']) await endpoint(world, receiver, world.restaurant, path);
  await endpoint(world, receiver, world.other, '/ok');
  // Attempts that never time out during the test: only the shares decide who is sent.
  const worker = worldWorker(t, world, { timeoutMs: 120_000, batch: 10, concurrency: 10, restaurantCap: 4 });
  await events(world, world.restaurant, 10); // 40 deliveries to A's hanging receivers
  worker.start();
  const until = async (what: string, done: () => boolean) => {
    for (const end = Date.now() + 20_000; !done(); await sleep(10))
      assert.ok(Date.now() < end, `waited 20 s for ${what}`);
  };
  await until("A's first attempts", () => hanging > 0);
  await events(world, world.other, 1);
  await until("B's delivery, while A's attempts hang", () => answeredB === 1);
  assert.ok(hanging > 0, "A's attempts still hang");
  // A's share reached (polled: on a loaded machine its last requests may still be on their way),
  // then a few more turns (pollMs is 100 ms): A never has more than its share in flight.
  await until("A's share of attempts in flight", () => hanging >= 4);
  await sleep(500);
  assert.equal(mostHanging, 4, `${mostHanging} of A's attempts at once`);
  release();
  await worker.stop();
});
