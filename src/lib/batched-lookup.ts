// Point lookups that every request makes (its access token, its restaurant's data versions)
// coalesced into one statement per turn of the event loop: the lookups asked for while requests
// are being read are sent together once the loop has read them all (setImmediate), and those asked
// for while that statement runs go together in the next. Under load one round trip answers tens of
// requests; alone, a request waits for nothing but its own statement.
//
// Nothing is remembered: every lookup is answered by a statement sent after it was asked for, so
// it sees every write committed before its request arrived (a revoked token is refused, a new
// version is read), exactly as a statement of its own would.

export type BatchedLookup<K, V> = (key: K) => Promise<V | undefined>;

export type BatchOptions = {
  /** Keys per statement; more wait for the next one. */
  maxBatch?: number;
  /** Statements running at once; lookups asked for meanwhile wait for one to end. */
  maxInFlight?: number;
};

type Waiter<V> = { resolve: (value: V | undefined) => void; reject: (reason: unknown) => void };

/** `fetch` answers many keys at once; keys it leaves out resolve to undefined. */
export function batchedLookup<K, V>(
  fetch: (keys: K[]) => Promise<Map<K, V>>,
  { maxBatch = 256, maxInFlight = 2 }: BatchOptions = {},
): BatchedLookup<K, V> {
  let queued = new Map<K, Waiter<V>[]>();
  let scheduled = false;
  let inFlight = 0;

  function send(): void {
    scheduled = false;
    while (queued.size > 0 && inFlight < maxInFlight) {
      const batch = take();
      inFlight += 1;
      started([...batch.keys()]).then(
        (found) => settle(batch, (w, key) => w.resolve(found.get(key))),
        (reason) => settle(batch, (w) => w.reject(reason)),
      );
    }
  }

  function started(keys: K[]): Promise<Map<K, V>> {
    try {
      return fetch(keys);
    } catch (reason) {
      return Promise.reject(reason);
    }
  }

  function take(): Map<K, Waiter<V>[]> {
    if (queued.size <= maxBatch) {
      const all = queued;
      queued = new Map();
      return all;
    }
    const some = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of queued) {
      if (some.size === maxBatch) break;
      some.set(key, waiters);
      queued.delete(key);
    }
    return some;
  }

  function settle(batch: Map<K, Waiter<V>[]>, each: (waiter: Waiter<V>, key: K) => void): void {
    inFlight -= 1;
    for (const [key, waiters] of batch) for (const waiter of waiters) each(waiter, key);
    // Those that queued behind this statement go at once: they have waited for it already.
    if (queued.size > 0 && !scheduled) send();
  }

  return (key) =>
    new Promise<V | undefined>((resolve, reject) => {
      const waiters = queued.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else queued.set(key, [{ resolve, reject }]);
      if (!scheduled && inFlight < maxInFlight) {
        scheduled = true;
        setImmediate(send);
      }
    });
}

/**
 * A batched lookup per database handle (a pool or an embedded instance), made on first use:
 * `lookup(db, key)` joins the keys asked of the same handle.
 */
export function batchedPerHandle<H extends object, K, V>(
  fetch: (handle: H, keys: K[]) => Promise<Map<K, V>>,
  options?: BatchOptions,
): (handle: H, key: K) => Promise<V | undefined> {
  const lookups = new WeakMap<H, BatchedLookup<K, V>>();
  return (handle, key) => {
    let lookup = lookups.get(handle);
    if (!lookup) {
      lookup = batchedLookup((keys: K[]) => fetch(handle, keys), options);
      lookups.set(handle, lookup);
    }
    return lookup(key);
  };
}
