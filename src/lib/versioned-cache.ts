// Per-instance cache of values derived from a restaurant's data, each held for the exact data
// version it was loaded at (restaurants.catalog_version, cash_flow_version, nfe_version). Triggers
// move a version in the same transaction as any write to what it covers (migrations 0003, 0009,
// 0010), so once a write has returned every instance reads a new version and reloads: an entry is
// only ever served for the version it was loaded at. Users: the menu (assembled catalogs) and the
// legacy product listing, keyed by restaurant; the received NF-e list and the cash-flow summaries
// and pages, keyed by restaurant and query, as text. Least recently used keys go first past the
// byte budget.
import { LRUCache } from 'lru-cache';
import { Counter, Gauge } from 'prom-client';

/** What an entry must say about itself: the version it holds, and its size for the budget. */
export type Versioned = { version: number; bytes: number };

export type ReadSource = 'memory' | 'database';

export type VersionedCache<T extends { version: number }, K extends string | number = number> = {
  /** The entry for `version`: from memory, or from `load` (shared by concurrent callers). */
  get(key: K, version: number, load: () => Promise<T>): Promise<T>;
  /** The entry in memory for `key`, whatever its version (the caller checks it); never loads. */
  held(key: K): T | undefined;
  /**
   * For a value whose version only its load learns (it reads the version in the same statement):
   * concurrent callers of one key share one load, and the result is kept.
   */
  load(key: K, load: () => Promise<T>): Promise<T>;
  /** Keeps a value read elsewhere (an older version never replaces a newer one). */
  set(key: K, value: T): void;
};

export type VersionedCacheBase = {
  /** Bytes kept per instance; least recently used keys go first past it. */
  maxBytes: number;
  /** Its label in /metrics (cache_bytes, cache_budget_bytes, cache_evictions_total). */
  name?: string;
  /** Called on every get(), with where the value came from (for a metric). */
  onRead?: (source: ReadSource) => void;
};

export type VersionedCacheOptions<T> = VersionedCacheBase & {
  /** An entry's size for the budget: its `bytes` by default (give it when entries have none). */
  sizeOf?: (value: T) => number;
};

const named = new Map<string, { bytes(): number; budget: number }>();

/** What each named cache holds and may hold, read when /metrics is scraped (the latest of a name). */
new Gauge({
  name: 'cache_bytes',
  help: 'Bytes held by each per-instance cache',
  labelNames: ['cache'],
  collect() {
    for (const [cache, { bytes }] of named) this.set({ cache }, bytes());
  },
});
new Gauge({
  name: 'cache_budget_bytes',
  help: 'Byte budget of each per-instance cache (its *_CACHE_MB setting)',
  labelNames: ['cache'],
  collect() {
    for (const [cache, { budget }] of named) this.set({ cache }, budget);
  },
});
const evictions = new Counter({
  name: 'cache_evictions_total',
  help: 'Entries dropped to keep a cache within its budget',
  labelNames: ['cache'],
});

export function createVersionedCache<T extends { version: number }, K extends string | number = number>(
  options: VersionedCacheOptions<T>,
): VersionedCache<T, K> {
  const {
    maxBytes,
    name,
    onRead = () => {},
    sizeOf = (value: T) => (value as Partial<Versioned>).bytes ?? 0,
  } = options;
  // Recency and the byte budget are lru-cache's (maxSize): on the tenants bench's access
  // patterns it took 1 µs a read where a sort of the entries on each eviction took 20 to 30 µs.
  // Sizes are whole bytes of at least 1; a budget of 0 keeps nothing.
  const entries =
    maxBytes > 0
      ? new LRUCache<K, { value: T }>({
          maxSize: maxBytes,
          sizeCalculation: (entry) => Math.max(1, Math.ceil(sizeOf(entry.value))),
          dispose: (_entry, _key, reason) => {
            if (reason === 'evict' && name) evictions.inc({ cache: name });
          },
        })
      : undefined;
  // Requests that see the same version share one load; the load starts after that version
  // was read, so its snapshot holds every write the version stands for. The version is a number
  // and comes last, so `key:version` names one pair even when a text key holds colons. A load
  // whose version is not known beforehand is shared under the key alone, in a map of its own.
  const loading = new Map<string, Promise<T>>();
  const loadingByKey = new Map<string, Promise<T>>();
  if (name) named.set(name, { bytes: () => entries?.calculatedSize ?? 0, budget: maxBytes });

  function set(key: K, value: T): void {
    if (!entries) return;
    const previous = entries.peek(key);
    if (previous && previous.value.version > value.version) return;
    // An entry larger than the whole budget is not kept (and no longer holds the key's place).
    if (sizeOf(value) > maxBytes) entries.delete(key);
    else entries.set(key, { value });
  }

  function held(key: K): T | undefined {
    return entries?.get(key)?.value;
  }

  function shared(pendings: Map<string, Promise<T>>, key: K, id: string, load: () => Promise<T>) {
    let pending = pendings.get(id);
    if (!pending) {
      pending = load().finally(() => pendings.delete(id));
      pendings.set(id, pending);
      pending.then(
        (value) => set(key, value),
        () => {},
      );
    }
    return pending;
  }

  return {
    held,
    set,
    load: (key, load) => shared(loadingByKey, key, String(key), load),
    async get(key, version, load) {
      const cached = held(key);
      if (cached?.version === version) {
        onRead('memory');
        return cached;
      }
      onRead('database');
      return shared(loading, key, `${key}:${version}`, load);
    },
  };
}
