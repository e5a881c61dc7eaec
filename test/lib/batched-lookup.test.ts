import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { batchedLookup } from '../../src/lib/batched-lookup.ts';

type Call = { keys: number[]; answer: (found: Map<number, string>) => void; fail: (reason: unknown) => void };

/** A lookup whose statements the test answers by hand, in any order. */
function manual(options?: Parameters<typeof batchedLookup>[1]) {
  const calls: Call[] = [];
  const lookup = batchedLookup(
    (keys: number[]) =>
      new Promise<Map<number, string>>((resolve, reject) => {
        calls.push({ keys, answer: resolve, fail: reject });
      }),
    options,
  );
  const answerAll = (call: Call) => call.answer(new Map(call.keys.map((k) => [k, `v${k}`])));
  return { calls, lookup, answerAll };
}

test('lookups asked in one turn of the event loop go in one statement', async () => {
  const { calls, lookup, answerAll } = manual();
  const answers = Promise.all([lookup(1), lookup(2), lookup(3)]);
  assert.equal(calls.length, 0, 'nothing is sent before the turn ends');
  await nextTurn();
  assert.deepEqual(
    calls.map((c) => c.keys),
    [[1, 2, 3]],
  );
  answerAll(calls[0]);
  assert.deepEqual(await answers, ['v1', 'v2', 'v3']);
});

test('a key asked twice is sent once and answers both', async () => {
  const { calls, lookup, answerAll } = manual();
  const answers = Promise.all([lookup(7), lookup(7)]);
  await nextTurn();
  assert.deepEqual(calls[0].keys, [7]);
  answerAll(calls[0]);
  assert.deepEqual(await answers, ['v7', 'v7']);
});

test('a key the statement does not return resolves to undefined', async () => {
  const { calls, lookup } = manual();
  const answers = Promise.all([lookup(1), lookup(2)]);
  await nextTurn();
  calls[0].answer(new Map([[2, 'two']]));
  assert.deepEqual(await answers, [undefined, 'two']);
});

test('a failed statement rejects its own lookups only', async () => {
  const { calls, lookup, answerAll } = manual();
  const failed = Promise.allSettled([lookup(1), lookup(2)]);
  await nextTurn();
  const later = lookup(3);
  await nextTurn();
  calls[0].fail(new Error('connection lost'));
  const settled = await failed;
  assert.deepEqual(
    settled.map((s) => s.status),
    ['rejected', 'rejected'],
  );
  assert.deepEqual(calls[1].keys, [3]);
  answerAll(calls[1]);
  assert.equal(await later, 'v3');
});

test('a fetch that throws before its promise rejects the batch', async () => {
  const lookup = batchedLookup((): Promise<Map<number, string>> => {
    throw new Error('bad statement');
  });
  await assert.rejects(lookup(1), /bad statement/);
});

test('a lookup asked while a statement runs is never answered by that statement', async () => {
  const { calls, lookup } = manual();
  const first = lookup(1);
  await nextTurn();
  // Asked after the first statement was sent: it may have been written since.
  const again = lookup(1);
  await nextTurn();
  assert.equal(calls.length, 2, 'sent in a statement of its own');
  calls[1].answer(new Map([[1, 'new']]));
  calls[0].answer(new Map([[1, 'old']]));
  assert.equal(await first, 'old');
  assert.equal(await again, 'new');
});

test('a statement carries at most maxBatch keys', async () => {
  const { calls, lookup, answerAll } = manual({ maxBatch: 2 });
  const answers = Promise.all([1, 2, 3, 4, 5].map((k) => lookup(k)));
  await nextTurn();
  assert.deepEqual(
    calls.map((c) => c.keys),
    [[1, 2], [3, 4], [5]],
  );
  for (const call of calls) answerAll(call);
  assert.deepEqual(await answers, ['v1', 'v2', 'v3', 'v4', 'v5']);
});

test('alone, a lookup is sent in the same turn it was asked', async () => {
  const { calls, lookup, answerAll } = manual();
  const answer = lookup(9);
  await nextTurn();
  assert.equal(calls.length, 1);
  answerAll(calls[0]);
  assert.equal(await answer, 'v9');
});
