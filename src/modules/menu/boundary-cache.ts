// Per-instance cache of each restaurant's schedule boundaries (schedule-window.ts) for one catalog
// version, kept apart from the catalog: the menu's ETag needs only them, a few dozen 16-bit
// minutes where the catalog is hundreds of KB, so they outlive the catalog's eviction and a
// revalidation (If-None-Match) is tagged without loading the catalog. On a miss they come from
// the catalog when this instance holds it, or else from one small query (loadCatalogSchedules).
import { Counter } from 'prom-client';
import type { Db } from '../../db/database.ts';
import { createVersionedCache } from '../../lib/versioned-cache.ts';
import type { Catalog } from './catalog.ts';
import { loadCatalogSchedules } from './repository.ts';
import { boundariesOf, scheduleBoundaries } from './schedule-window.ts';

const reads = new Counter({
  name: 'menu_boundaries_reads_total',
  help: "Menu tags by where the schedule boundaries came from: memory, the instance's catalog, or a query to the database",
  labelNames: ['source'],
});

/** The boundaries of the catalog at `version`. */
export type Boundaries = { version: number; minutes: Uint16Array };

/** About what an entry costs besides its minutes: its key, the objects and lru-cache's bookkeeping. */
const ENTRY_BYTES = 200;

export type BoundaryCache = ReturnType<typeof createBoundaryCache>;

/** `maxBytes`: 2 MiB (MENU_BOUNDARY_CACHE_MB's default) holds about 10,000 restaurants. */
export function createBoundaryCache(maxBytes: number) {
  const cache = createVersionedCache<Boundaries>({
    maxBytes,
    name: 'menu_boundaries',
    sizeOf: (entry) => ENTRY_BYTES + entry.minutes.byteLength,
    onRead: (source) => reads.inc({ source }),
  });
  /** Keeps the boundaries of a catalog a read assembled or found, unless they are kept already. */
  function keep(restaurantId: number, catalog: Catalog): Boundaries {
    const held = cache.held(restaurantId);
    if (held?.version === catalog.version) return held;
    const boundaries = { version: catalog.version, minutes: boundariesOf(catalog) };
    cache.set(restaurantId, boundaries);
    return boundaries;
  }
  return {
    /** The boundaries of `version` if this instance keeps them; never loads. */
    current: (restaurantId: number, version: number): Boundaries | undefined =>
      cache.current(restaurantId, version),

    keep,

    /** Those of a catalog a tag took them from (counted as such), kept. */
    fromCatalog(restaurantId: number, catalog: Catalog): Boundaries {
      reads.inc({ source: 'catalog' });
      return keep(restaurantId, catalog);
    },

    /**
     * The boundaries read from the database for `version` (concurrent callers share one query):
     * those of the version the query saw, which the caller compares with the one it asked for.
     */
    load: (db: Db, restaurantId: number, version: number): Promise<Boundaries> =>
      cache.get(restaurantId, version, async () => {
        const read = await loadCatalogSchedules(db, restaurantId);
        return { version: read.version ?? -1, minutes: scheduleBoundaries([read.schedules]) };
      }),
  };
}
