import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PACKED_OVERHEAD, pack, UNPACKED_SHARE } from '../../../src/lib/versioned-cache.ts';
import type { Catalog } from '../../../src/modules/menu/catalog.ts';
import { createCatalogCache } from '../../../src/modules/menu/catalog-cache.ts';

// The cache reads only version and bytes.
const catalog = (version: number, bytes = 10) => ({ version, bytes }) as Catalog;

function loader(make: () => Catalog) {
  const calls = { count: 0 };
  const load = async () => {
    calls.count++;
    await new Promise((resolve) => setTimeout(resolve, 5));
    return make();
  };
  return { calls, load };
}

describe('the catalog cache', () => {
  test('the same version is loaded once and then served from memory', async () => {
    const cache = createCatalogCache();
    const { calls, load } = loader(() => catalog(3));
    const first = await cache.get(1, 3, load);
    assert.equal(await cache.get(1, 3, load), first);
    assert.equal(calls.count, 1);
  });

  test('concurrent reads of one version share one load', async () => {
    const cache = createCatalogCache();
    const { calls, load } = loader(() => catalog(3));
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.get(1, 3, load)));
    assert.equal(calls.count, 1);
    assert.ok(results.every((r) => r === results[0]));
  });

  test('a new version reloads', async () => {
    const cache = createCatalogCache();
    await cache.get(1, 3, loader(() => catalog(3)).load);
    const { calls, load } = loader(() => catalog(4));
    assert.equal((await cache.get(1, 4, load)).version, 4);
    assert.equal(calls.count, 1);
  });

  test('an entry is never served for another version, even an older one', async () => {
    const cache = createCatalogCache();
    await cache.get(1, 4, loader(() => catalog(4)).load);
    const { calls, load } = loader(() => catalog(4));
    await cache.get(1, 3, load);
    assert.equal(calls.count, 1);
  });

  test('restaurants are kept apart', async () => {
    const cache = createCatalogCache();
    const a = await cache.get(1, 1, loader(() => catalog(1)).load);
    const b = await cache.get(2, 1, loader(() => catalog(1)).load);
    assert.notEqual(a, b);
    assert.equal(await cache.get(1, 1, loader(() => catalog(1)).load), a);
  });

  test('a failed load is not kept: the next read tries again', async () => {
    const cache = createCatalogCache();
    await assert.rejects(
      cache.get(1, 1, async () => {
        throw new Error('database down');
      }),
    );
    const { calls, load } = loader(() => catalog(1));
    await cache.get(1, 1, load);
    assert.equal(calls.count, 1);
  });

  test('past the memory budget the least recently used restaurant is dropped', async () => {
    // Catalogs are kept compressed: a budget that holds two of them packed, none as it is.
    const big = (version: number) => catalog(version, 1_000_000);
    const each = pack(big(1)).packed.length + PACKED_OVERHEAD;
    const cache = createCatalogCache(Math.ceil((each * 2.5) / (1 - UNPACKED_SHARE)));
    // A catalog is packed once the read that loaded it is answered.
    const packed = () => new Promise((resolve) => setImmediate(resolve));
    await cache.get(1, 1, loader(() => big(1)).load);
    await cache.get(2, 1, loader(() => big(1)).load);
    await packed();
    await cache.get(1, 1, loader(() => big(1)).load); // 1 is now the most recent
    await cache.get(3, 1, loader(() => big(1)).load); // three do not fit: 2 goes
    await packed();
    const again = (id: number) => {
      const { calls, load } = loader(() => big(1));
      return cache.get(id, 1, load).then(() => calls.count);
    };
    assert.equal(await again(1), 0);
    assert.equal(await again(3), 0);
    assert.equal(await again(2), 1);
  });

  test('a catalog larger than the whole budget is served but not kept', async () => {
    const cache = createCatalogCache(5);
    await cache.get(1, 1, loader(() => catalog(1, 10)).load);
    const { calls, load } = loader(() => catalog(1, 10));
    await cache.get(1, 1, load);
    assert.equal(calls.count, 1);
  });
});
