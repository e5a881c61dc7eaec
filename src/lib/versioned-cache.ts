// Per-instance cache of values derived from a restaurant's catalog, each held for the exact
// restaurants.catalog_version it was loaded at. A trigger moves the version in the same
// transaction as any catalog write (migration 0003), so once a write has returned every instance
// reads a new version and reloads: an entry is only ever served for the version it was loaded at.
// The menu (assembled catalogs) and the legacy product listing (rendered JSON) both use it, keyed
// by restaurant; the received NF-e list (rendered JSON) keys it by restaurant and query, as text.

/** What an entry must say about itself: the version it holds, and its size for the budget. */
export type Versioned = { version: number; bytes: number };

export type ReadSource = 'memory' | 'database';

export type VersionedCache<T extends Versioned, K extends string | number = number> = {
  /** The entry for `version`: from memory, or from `load` (shared by concurrent callers). */
  get(key: K, version: number, load: () => Promise<T>): Promise<T>;
  /** The entry in memory for `key`, whatever its version (the caller checks it); never loads. */
  held(key: K): T | undefined;
};

export type VersionedCacheOptions = {
  /** Bytes kept per instance; least recently used keys go first past it. */
  maxBytes: number;
  /** Called on every get(), with where the value came from (for a metric). */
  onRead?: (source: ReadSource) => void;
};

export function createVersionedCache<T extends Versioned, K extends string | number = number>(
  options: VersionedCacheOptions,
): VersionedCache<T, K> {
  const { maxBytes, onRead = () => {} } = options;
  const entries = new Map<K, T>();
  // Requests that see the same version share one load; the load starts after that version
  // was read, so its snapshot holds every write the version stands for. The version is a number
  // and comes last, so `key:version` names one pair even when a text key holds colons.
  const loading = new Map<string, Promise<T>>();
  let cachedBytes = 0;

  function store(key: K, value: T): void {
    const previous = entries.get(key);
    if (previous) {
      if (previous.version > value.version) return;
      entries.delete(key);
      cachedBytes -= previous.bytes;
    }
    if (value.bytes > maxBytes) return;
    entries.set(key, value);
    cachedBytes += value.bytes;
    for (const [id, entry] of entries) {
      if (cachedBytes <= maxBytes) break;
      entries.delete(id);
      cachedBytes -= entry.bytes;
    }
  }

  function held(key: K): T | undefined {
    const cached = entries.get(key);
    if (cached === undefined) return undefined;
    // Map order is insertion order: re-inserting marks it most recently used.
    entries.delete(key);
    entries.set(key, cached);
    return cached;
  }

  return {
    held,
    async get(key, version, load) {
      const cached = held(key);
      if (cached?.version === version) {
        onRead('memory');
        return cached;
      }
      onRead('database');
      const id = `${key}:${version}`;
      let pending = loading.get(id);
      if (!pending) {
        pending = load().finally(() => loading.delete(id));
        loading.set(id, pending);
        pending.then(
          (value) => store(key, value),
          () => {},
        );
      }
      return pending;
    },
  };
}
