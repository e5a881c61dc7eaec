// Per-instance cache of values derived from a restaurant's data, each held for the exact data
// version it was loaded at (restaurants.catalog_version, cash_flow_version, nfe_version,
// events_version). Triggers move a version in the same transaction as any write to what it covers
// (migrations 0003, 0009, 0010, 0015, 0024), so once a write has returned every instance reads a new
// version and reloads: an entry is only ever served for the version it was loaded at. Users: the
// menu (assembled catalogs, and their schedule boundaries apart) and the legacy product listing,
// keyed by restaurant; the received NF-e list, the cash-flow summaries and pages and the event
// feed's pages, keyed by restaurant and query, as text. Least recently used keys go first past
// the byte budget. (The feed also keeps only pages from which the xmin rule held nothing back:
// src/modules/events/feed-cache.ts.)
//
// A cache made with `packed: true` keeps every entry compressed (v8.serialize, then zstd, or the
// `packing` it is given) and only the most recently read ones as they are too (a quarter of the budget): read once by 1,000
// restaurants, rendered menus, listings and pages are JSON that compresses 15 to 25 times, so the
// whole set fits where a tenth of it did, and a read of a restaurant nobody read lately unpacks its
// entry (about 0.2 ms for a 300 KB catalog) instead of reloading it from the database and
// rendering it again (5 to 10 ms). An entry is packed once per version, when it first leaves the
// unpacked share.
import v8 from 'node:v8';
import { constants, zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { Counter, Gauge } from 'prom-client';

/** What an entry must say about itself: the version it holds, and its size for the budget. */
export type Versioned = { version: number; bytes: number };

/** As it is in memory, unpacked from its compressed form, or loaded. */
type ReadSource = 'memory' | 'packed' | 'database';

export type VersionedCache<T extends { version: number }, K extends string | number = number> = {
  /** The entry for `version`: from memory, or from `load` (shared by concurrent callers). */
  get(key: K, version: number, load: () => Promise<T>): Promise<T>;
  /** The entry for `version` if one is kept (unpacked when it has to be); never loads. */
  current(key: K, version: number): T | undefined;
  /** The entry held unpacked for `key`, whatever its version (the caller checks it); never unpacks nor loads. */
  held(key: K): T | undefined;
  /**
   * For a value whose version only its load learns (it reads the version in the same statement):
   * concurrent callers of one key share one load, and the result is kept.
   */
  load(key: K, load: () => Promise<T>): Promise<T>;
  /** Keeps a value read elsewhere (an older version never replaces a newer one). */
  set(key: K, value: T): void;
};

type VersionedCacheBase = {
  /** Bytes kept per instance; least recently used keys go first past it. */
  maxBytes: number;
  /** Its label in /metrics (cache_bytes, cache_budget_bytes, cache_evictions_total). */
  name?: string;
  /** Called on every get() and current() that finds or loads it, with where the value came from (for a metric). */
  onRead?: (source: ReadSource) => void;
  /**
   * Keep every entry compressed, the most recently read a quarter of the budget also as they
   * are. Values must survive v8.serialize (plain data, Buffers, typed arrays, Maps), unless the
   * cache is given its own `packing`.
   */
  packed?: boolean;
};

/** How a packed cache compresses an entry (`length`: what unpack() is told) and reads it back. */
export type Packing<T> = {
  pack(value: T): { packed: Buffer; length: number };
  unpack(packed: Buffer, length: number, version: number): T;
};

type VersionedCacheOptions<T> = VersionedCacheBase & {
  /** An entry's size for the budget: its `bytes` by default (give it when entries have none). */
  sizeOf?: (value: T) => number;
  /** With `packed`: how entries are compressed; v8.serialize, then zstd, by default. */
  packing?: Packing<T>;
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

/** The share of a packed cache's budget that holds entries as they are. */
export const UNPACKED_SHARE = 0.25;
/** What a packed entry costs besides its compressed bytes (its key and bookkeeping), about. */
export const PACKED_OVERHEAD = 200;
const ZSTD = { params: { [constants.ZSTD_c_compressionLevel]: 3 } };

/**
 * The bytes in memory of their own. zlib's output is a view of a larger chunk, or of Node's shared
 * pool (64 KiB slabs in Node 24), when it is short: kept for long, it would hold all of that.
 */
export function exact(bytes: Buffer): Buffer {
  if (bytes.buffer.byteLength === bytes.length) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

/** A value compressed, with its serialised length: the output is then one chunk of that size. */
type Packed = { version: number; packed: Buffer; length: number };

/** Any value that survives v8.serialize, then zstd: `length` is its serialised length. */
const serialised: Packing<unknown> = {
  pack(value) {
    const bytes = v8.serialize(value);
    return { packed: zstdCompressSync(bytes, ZSTD), length: bytes.length };
  },
  unpack: (packed, length) =>
    v8.deserialize(exact(zstdDecompressSync(packed, { chunkSize: Math.max(64, length) }))),
};

export function pack<T extends { version: number }>(value: T, packing = serialised as Packing<T>): Packed {
  const { packed, length } = packing.pack(value);
  return { version: value.version, packed: exact(packed), length };
}

const unpack = <T>({ packed, length, version }: Packed, packing = serialised as Packing<T>): T =>
  packing.unpack(packed, length, version);

function lru<K extends string | number, V extends object>(
  maxSize: number,
  size: (value: V) => number,
  evicted: (value: V, key: K) => void,
): LRUCache<K, V> | undefined {
  // Sizes are whole bytes of at least 1; a budget of 0 keeps nothing.
  if (maxSize <= 0) return undefined;
  return new LRUCache<K, V>({
    maxSize,
    sizeCalculation: (value) => Math.max(1, Math.ceil(size(value))),
    dispose: (value, key, reason) => {
      if (reason === 'evict') evicted(value, key);
    },
  });
}

export function createVersionedCache<T extends { version: number }, K extends string | number = number>(
  options: VersionedCacheOptions<T>,
): VersionedCache<T, K> {
  const {
    maxBytes,
    name,
    onRead = () => {},
    sizeOf = (value: T) => (value as Partial<Versioned>).bytes ?? 0,
    packed: packs = false,
    packing = serialised as Packing<T>,
  } = options;
  const evicted = () => {
    if (name) evictions.inc({ cache: name });
  };
  // An entry is packed when it leaves the unpacked share (unless its version is packed already):
  // one read over and over, or replaced by its next version, it never is.
  const unpackedEvicted = (entry: { value: T }, key: K) => {
    evicted();
    if (packedEntries) setImmediate(keepPacked, key, entry.value);
  };
  // Recency and the byte budget are lru-cache's (maxSize): on the tenants bench's access
  // patterns it took 1 µs a read where a sort of the entries on each eviction took 20 to 30 µs.
  const unpackedBytes = packs ? Math.floor(maxBytes * UNPACKED_SHARE) : maxBytes;
  const entries = lru<K, { value: T }>(unpackedBytes, (entry) => sizeOf(entry.value), unpackedEvicted);
  const packedEntries = packs
    ? lru<K, Packed>(maxBytes - unpackedBytes, (entry) => entry.packed.length + PACKED_OVERHEAD, evicted)
    : undefined;
  // Requests that see the same version share one load; the load starts after that version
  // was read, so its snapshot holds every write the version stands for. The version is a number
  // and comes last, so `key:version` names one pair even when a text key holds colons. A load
  // whose version is not known beforehand is shared under the key alone, in a map of its own.
  const loading = new Map<string, Promise<T>>();
  const loadingByKey = new Map<string, Promise<T>>();
  if (name)
    named.set(name, {
      bytes: () => (entries?.calculatedSize ?? 0) + (packedEntries?.calculatedSize ?? 0),
      budget: maxBytes,
    });

  /** Keeps the value as it is, when it fits the unpacked share. */
  function keep(key: K, value: T): void {
    if (!entries) return;
    // An entry larger than the whole budget is not kept (and no longer holds the key's place).
    if (sizeOf(value) > unpackedBytes) entries.delete(key);
    else entries.set(key, { value });
  }

  function set(key: K, value: T): void {
    const previous = entries?.peek(key)?.value.version ?? packedEntries?.peek(key)?.version;
    if (previous !== undefined && previous > value.version) return;
    const older = packedEntries?.peek(key);
    if (older && older.version < value.version) packedEntries?.delete(key);
    keep(key, value);
    // Too large to be kept as it is: packed at once, after the answer that loaded it is on its way.
    if (packedEntries && !entries?.has(key)) setImmediate(keepPacked, key, value);
  }

  /** Packs a value (on the next turn of the event loop: never in the middle of a request's work). */
  function keepPacked(key: K, value: T): void {
    if (!packedEntries) return;
    const previous = entries?.peek(key)?.value.version ?? packedEntries.peek(key)?.version;
    if (previous !== undefined && previous > value.version) return;
    if (packedEntries.peek(key)?.version === value.version) return;
    const entry = pack(value, packing);
    if (entry.packed.length + PACKED_OVERHEAD > packedEntries.maxSize) packedEntries.delete(key);
    else packedEntries.set(key, entry);
  }

  function held(key: K): T | undefined {
    return entries?.get(key)?.value;
  }

  function current(key: K, version: number): T | undefined {
    const cached = held(key);
    if (cached?.version === version) {
      onRead('memory');
      return cached;
    }
    const kept = packedEntries?.get(key);
    if (kept?.version !== version) return undefined;
    const value = unpack(kept, packing);
    keep(key, value);
    onRead('packed');
    return value;
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
    current,
    set,
    load: (key, load) => shared(loadingByKey, key, String(key), load),
    async get(key, version, load) {
      const cached = current(key, version);
      if (cached) return cached;
      onRead('database');
      return shared(loading, key, `${key}:${version}`, load);
    },
  };
}
