// Per-instance cache of values derived from a restaurant's data, each held for the exact data
// version it was loaded at (restaurants.catalog_version, cash_flow_version, nfe_version). Triggers
// move a version in the same transaction as any write to what it covers (migrations 0003, 0009,
// 0010), so once a write has returned every instance reads a new version and reloads: an entry is
// only ever served for the version it was loaded at. Users: the menu (assembled catalogs) and the
// legacy product listing, keyed by restaurant; the received NF-e list and the cash-flow summaries
// and pages, keyed by restaurant and query, as text. Least recently used keys go first past the
// byte budget.
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
  const entries = new Map<K, { value: T; bytes: number; used: number }>();
  // Requests that see the same version share one load; the load starts after that version
  // was read, so its snapshot holds every write the version stands for. The version is a number
  // and comes last, so `key:version` names one pair even when a text key holds colons. A load
  // whose version is not known beforehand is shared under the key alone, in a map of its own.
  const loading = new Map<string, Promise<T>>();
  const loadingByKey = new Map<string, Promise<T>>();
  let cachedBytes = 0;
  let clock = 0;
  if (name) named.set(name, { bytes: () => cachedBytes, budget: maxBytes });

  function set(key: K, value: T): void {
    const previous = entries.get(key);
    if (previous) {
      if (previous.value.version > value.version) return;
      entries.delete(key);
      cachedBytes -= previous.bytes;
    }
    const bytes = sizeOf(value);
    if (bytes > maxBytes) return;
    entries.set(key, { value, bytes, used: ++clock });
    cachedBytes += bytes;
    if (cachedBytes > maxBytes) evict();
  }

  /** Least recently used first, until the entries fit the budget again. */
  function evict(): void {
    const byUse = [...entries].sort(([, a], [, b]) => a.used - b.used);
    for (const [id, entry] of byUse) {
      if (cachedBytes <= maxBytes) break;
      entries.delete(id);
      cachedBytes -= entry.bytes;
      if (name) evictions.inc({ cache: name });
    }
  }

  function held(key: K): T | undefined {
    const cached = entries.get(key);
    if (cached === undefined) return undefined;
    // A use is a tick on the entry: moving it in the map on every read cost a hot read more.
    cached.used = ++clock;
    return cached.value;
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
