// Per-instance cache of assembled catalogs, checked against restaurants.catalog_version on
// every read (src/lib/versioned-cache.ts says how the version keeps it current).
import { Counter } from 'prom-client';
import { createVersionedCache } from '../../lib/versioned-cache.ts';
import type { Catalog } from './catalog.ts';

const reads = new Counter({
  name: 'menu_catalog_reads_total',
  help: 'Menu reads by where the catalog came from: memory, unpacked from its compressed form, or a load from the database (shared by concurrent reads)',
  labelNames: ['source'],
});

export type CatalogCache = {
  get(restaurantId: number, version: number, load: () => Promise<Catalog>): Promise<Catalog>;
  /** The catalog of `version` if one is kept (unpacked when it has to be); never loads. */
  current(restaurantId: number, version: number): Catalog | undefined;
  /** The catalog held as it is, whatever its version; never unpacks nor loads. */
  held(restaurantId: number): Catalog | undefined;
  /** Keeps a catalog again, so that its budget counts what it grew by (Catalog.bytes), or a newer one. */
  set(restaurantId: number, catalog: Catalog): void;
};

/**
 * The menu's share of an instance's memory: rendered catalogs, both channels of every restaurant,
 * compressed, the most recently read also as they are; least recently used go first past it.
 */
const MENU_CACHE_BYTES = 64 * 1024 * 1024;

export function createCatalogCache(maxBytes = MENU_CACHE_BYTES): CatalogCache {
  return createVersionedCache<Catalog>({
    maxBytes,
    name: 'menu',
    packed: true,
    onRead: (source) => reads.inc({ source }),
  });
}
