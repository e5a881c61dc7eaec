// Per-instance cache of assembled catalogs, checked against restaurants.catalog_version on
// every read. A trigger moves the version in the same transaction as any catalog write
// (migration 0003), so once a write has returned every instance reads a new version and
// reloads: an entry is only ever served for the exact version it was loaded at.
import { Counter } from 'prom-client';
import type { Catalog } from './catalog.ts';

const reads = new Counter({
  name: 'menu_catalog_reads_total',
  help: 'Menu reads by where the catalog came from: memory, or a load from the database (shared by concurrent reads)',
  labelNames: ['source'],
});

export type CatalogCache = {
  get(restaurantId: number, version: number, load: () => Promise<Catalog>): Promise<Catalog>;
};

/** Rendered JSON kept per instance; least recently used restaurants go first past it. */
export const DEFAULT_MAX_CACHED_BYTES = 128 * 1024 * 1024;

export function createCatalogCache(maxBytes = DEFAULT_MAX_CACHED_BYTES): CatalogCache {
  const entries = new Map<number, Catalog>();
  // Requests that see the same version share one load; the load starts after that version
  // was read, so its snapshot holds every write the version stands for.
  const loading = new Map<string, Promise<Catalog>>();
  let cachedBytes = 0;

  function store(restaurantId: number, catalog: Catalog): void {
    const previous = entries.get(restaurantId);
    if (previous) {
      if (previous.version > catalog.version) return;
      entries.delete(restaurantId);
      cachedBytes -= previous.bytes;
    }
    if (catalog.bytes > maxBytes) return;
    entries.set(restaurantId, catalog);
    cachedBytes += catalog.bytes;
    for (const [id, entry] of entries) {
      if (cachedBytes <= maxBytes) break;
      entries.delete(id);
      cachedBytes -= entry.bytes;
    }
  }

  return {
    async get(restaurantId, version, load) {
      const cached = entries.get(restaurantId);
      if (cached?.version === version) {
        // Map order is insertion order: re-inserting marks it most recently used.
        entries.delete(restaurantId);
        entries.set(restaurantId, cached);
        reads.inc({ source: 'memory' });
        return cached;
      }
      reads.inc({ source: 'database' });
      const key = `${restaurantId}:${version}`;
      let pending = loading.get(key);
      if (!pending) {
        pending = load().finally(() => loading.delete(key));
        loading.set(key, pending);
        pending.then(
          (catalog) => store(restaurantId, catalog),
          () => {},
        );
      }
      return pending;
    },
  };
}
