import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createSlots } from '../../src/lib/slots.ts';

const never = () => new AbortController().signal;

test('at most `limit` holders; the others get a slot in arrival order', async () => {
  const slots = createSlots(2);
  const first = await slots.acquire(never());
  const second = await slots.acquire(never());
  const order: string[] = [];
  const third = slots.acquire(never()).then((release) => {
    order.push('third');
    return release;
  });
  const fourth = slots.acquire(never()).then((release) => {
    order.push('fourth');
    return release;
  });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(order, []);
  assert.equal(slots.waiting, 2);
  first();
  first();
  (await third)();
  second();
  (await fourth)();
  assert.deepEqual(order, ['third', 'fourth']);
  assert.equal(slots.busy, 0, 'a release called twice gives back one slot');
});

test('a waiter whose signal aborts leaves the queue with its reason, and takes no slot', async () => {
  const slots = createSlots(1);
  const holder = await slots.acquire(never());
  const controller = new AbortController();
  const waiting = slots.acquire(controller.signal);
  controller.abort(new Error('gave up'));
  await assert.rejects(waiting, /gave up/);
  assert.equal(slots.waiting, 0);
  await assert.rejects(slots.acquire(controller.signal), /gave up/, 'an aborted signal never waits');
  holder();
  assert.equal(slots.busy, 0);
  (await slots.acquire(never()))();
});
