import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createVersionedCache } from '../../src/lib/versioned-cache.ts';

const entry = (version: number, bytes = 10) => ({ version, bytes });

test('past its budget the cache lets the least recently used keys go first', () => {
  const cache = createVersionedCache<{ version: number; bytes: number }, string>({ maxBytes: 20 });
  cache.set('a', entry(1));
  cache.set('b', entry(1));
  assert.ok(cache.held('a'), 'a read makes a the most recently used');
  cache.set('c', entry(1));
  assert.equal(cache.held('b'), undefined, 'b was the least recently used');
  assert.ok(cache.held('a'));
  assert.ok(cache.held('c'));
  cache.set('d', entry(1, 15));
  assert.equal(cache.held('a'), undefined);
  assert.equal(cache.held('c'), undefined, 'both went to make room for 15 bytes');
  assert.ok(cache.held('d'));
});

test('an entry larger than the budget is not kept, and an older version never replaces a newer', () => {
  const cache = createVersionedCache<{ version: number; bytes: number }, string>({ maxBytes: 20 });
  cache.set('big', entry(1, 21));
  assert.equal(cache.held('big'), undefined);
  cache.set('a', entry(5));
  cache.set('a', entry(4));
  assert.equal(cache.held('a')?.version, 5);
  cache.set('a', entry(6, 12));
  assert.equal(cache.held('a')?.version, 6);
  cache.set('b', entry(1, 8));
  assert.ok(cache.held('a') && cache.held('b'), "the replaced version's bytes no longer count: 12 + 8 fit");
  cache.set('c', entry(1, 1));
  assert.equal(cache.held('a'), undefined, '21 bytes: the least recently used goes');
});
