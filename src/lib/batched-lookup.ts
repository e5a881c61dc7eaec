// Point lookups that every request makes (its access token, its restaurant's data versions)
// coalesced into one statement per turn of the event loop, with `dataloader` and no cache: the
// lookups asked for while requests are being read are sent together once the loop has read them
// all (setImmediate). Nothing is remembered: every lookup is answered by a statement sent after it
// was asked for, so it sees every write committed before its request arrived (a revoked token is
// refused, a new version is read), exactly as a statement of its own would.
import DataLoader from 'dataloader';

type BatchedLookup<K, V> = (key: K) => Promise<V | undefined>;

/**
 * `fetch` answers many keys at once; keys it leaves out resolve to undefined. `maxBatch`: keys per
 * statement, more go in another.
 */
export function batchedLookup<K, V>(
  fetch: (keys: K[]) => Promise<Map<K, V>>,
  { maxBatch = 256 } = {},
): BatchedLookup<K, V> {
  const loader = new DataLoader<K, V | undefined>(
    async (keys) => {
      const found = await fetch([...new Set(keys)]);
      return keys.map((key) => found.get(key));
    },
    { cache: false, maxBatchSize: maxBatch, batchScheduleFn: (send) => setImmediate(send) },
  );
  return (key) => loader.load(key);
}

/**
 * A batched lookup per database handle (a pool or an embedded instance), made on first use:
 * `lookup(db, key)` joins the keys asked of the same handle.
 */
export function batchedPerHandle<H extends object, K, V>(
  fetch: (handle: H, keys: K[]) => Promise<Map<K, V>>,
): (handle: H, key: K) => Promise<V | undefined> {
  const lookups = new WeakMap<H, BatchedLookup<K, V>>();
  return (handle, key) => {
    let lookup = lookups.get(handle);
    if (!lookup) {
      lookup = batchedLookup((keys: K[]) => fetch(handle, keys));
      lookups.set(handle, lookup);
    }
    return lookup(key);
  };
}
