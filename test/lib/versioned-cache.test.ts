import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVersionedCache, exact, PACKED_OVERHEAD, pack } from '../../src/lib/versioned-cache.ts';

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

describe('a packed cache', () => {
  type Entry = { version: number; bytes: number; body: Buffer };
  const body = (text: string) => Buffer.from(text.repeat(1000));
  const value = (version: number, text: string): Entry => ({ version, bytes: 4000, body: body(text) });
  const packedBytes = (entry: Entry) => pack(entry).packed.length + PACKED_OVERHEAD;

  /** Entries are packed once the turn of the event loop that kept them is over. */
  const packed = () => new Promise((resolve) => setImmediate(resolve));

  test('keeps an entry that leaves the unpacked share compressed, and serves it for its version only', async () => {
    // Room for one entry as it is (a quarter of the budget) and several packed.
    const reads: string[] = [];
    const cache = createVersionedCache<Entry, string>({
      maxBytes: 16_000,
      packed: true,
      onRead: (source) => reads.push(source),
    });
    cache.set('a', value(1, 'abcd'));
    cache.set('b', value(1, 'efgh'));
    await packed();
    assert.equal(cache.held('a'), undefined, 'only b is held as it is');
    const a = cache.current('a', 1);
    assert.deepEqual(a, value(1, 'abcd'), 'a comes back whole from its compressed form');
    assert.equal(cache.held('a'), a, 'and is now the one held as it is');
    assert.equal(cache.current('a', 1), a);
    assert.equal(cache.current('b', 2), undefined, 'never for another version');
    assert.deepEqual(reads, ['packed', 'memory']);
  });

  test('past its budget the least recently used packed entries go, and get() loads them again', async () => {
    const each = packedBytes(value(1, 'abcd'));
    const cache = createVersionedCache<Entry, string>({
      maxBytes: Math.ceil((each * 2.5) / 0.75),
      packed: true,
    });
    cache.set('a', value(1, 'abcd'));
    cache.set('b', value(1, 'efgh'));
    await packed();
    assert.ok(cache.current('a', 1));
    cache.set('c', value(1, 'ijkl'));
    await packed();
    assert.equal(cache.current('b', 1), undefined, 'b was the least recently used');
    let loads = 0;
    const load = async () => {
      loads++;
      return value(1, 'efgh');
    };
    assert.deepEqual(await cache.get('b', 1, load), value(1, 'efgh'));
    assert.deepEqual(await cache.get('c', 1, load), value(1, 'ijkl'));
    assert.equal(loads, 1);
  });

  test('a budget of 0 keeps nothing', async () => {
    const cache = createVersionedCache<Entry, string>({ maxBytes: 0, packed: true });
    cache.set('a', value(1, 'abcd'));
    await packed();
    assert.equal(cache.current('a', 1), undefined);
  });
});

test('exact() gives short bytes memory of their own, not a slice of the shared pool', () => {
  const pooled = Buffer.from('a short text');
  assert.ok(pooled.buffer.byteLength > pooled.length, 'Buffer.from takes a slice of the pool');
  const own = exact(pooled);
  assert.equal(own.buffer.byteLength, own.length);
  assert.deepEqual(own, pooled);
  const whole = Buffer.allocUnsafeSlow(10);
  assert.equal(exact(whole), whole, 'bytes that already own their memory are not copied');
});
