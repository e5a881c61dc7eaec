// GET /v1/products and GET /v1/products/{id} (contract 4.2, 4.3). The listing is rendered once
// per restaurant and catalog version and kept per instance (listing.ts); every read first reads
// the version, so a write committed anywhere, through the routes, the importer or psql, is in the
// very next read on every instance (src/lib/versioned-cache.ts says why).
//
// A product read answers from the listing held for the current version: no query of its own (the
// version comes with the token check, src/db/restaurant-state.ts), no row to parse, no serialiser. Without it (or behind the version), it reads the row in one round
// trip and has the listing rendered in the background, but spends at most about 1% of the time
// on that per restaurant: a catalog written to all the time is not rendered after every write.
import { Counter } from 'prom-client';
import type { Db } from '../../db/database.ts';
import type { Restaurant } from '../../db/restaurant-state.ts';
import { errors } from '../../http/errors.ts';
import { createVersionedCache } from '../../lib/versioned-cache.ts';
import { createListingWriter, type Listing, productDetail } from './listing.ts';
import { type MappedRow, mapProduct, type ProductResponse } from './product-map.ts';
import { findProduct, findProductWithVersion, readListing } from './read-repository.ts';

const reads = new Counter({
  name: 'catalog_listing_reads_total',
  help: 'GET /v1/products reads by where the listing came from: memory, or a render from the database',
  labelNames: ['source'],
});
const renders = new Counter({
  name: 'catalog_listing_renders_total',
  help: 'Legacy listings rendered, by the read that asked: listing (GET /v1/products) or product (in the background)',
  labelNames: ['cause'],
});

type Cause = 'listing' | 'product';

/** Rendered listings kept per instance; a restaurant whose listing alone is larger is rendered per read. */
export const LISTING_CACHE_BYTES = 32 * 1024 * 1024;

/** A background render for product reads waits this many times the previous one's duration. */
const WARM_SPACING = 100;
/** A listing too large to keep is not rendered for product reads again before this (ms). */
const TOO_LARGE_BACKOFF = 10 * 60 * 1000;

function detail(row: MappedRow | undefined): ProductResponse {
  if (!row) throw errors.productNotFound();
  return mapProduct(row, { alias: true });
}

export type CatalogReader = ReturnType<typeof createCatalogReader>;

export function createCatalogReader(db: Db, maxBytes = LISTING_CACHE_BYTES) {
  const cache = createVersionedCache<Listing>({ maxBytes });
  /** Held listings a product read found behind the current version. */
  const behind = new WeakSet<Listing>();
  /** By restaurant: when product reads may start a render again (performance.now()). */
  const nextWarm = new Map<number, number>();

  async function render(restaurantId: number, cause: Cause): Promise<Listing> {
    renders.inc({ cause });
    const writer = createListingWriter();
    const version = await readListing(db, restaurantId, (rows) => writer.add(rows));
    return writer.finish(version);
  }
  const load = (restaurantId: number, version: number, cause: Cause) =>
    cache.get(restaurantId, version, () => render(restaurantId, cause));

  function warm(restaurantId: number, version: number): void {
    const started = performance.now();
    if ((nextWarm.get(restaurantId) ?? 0) > started) return;
    if (nextWarm.size > 10_000) {
      for (const [id, at] of nextWarm) if (at <= started) nextWarm.delete(id);
      if (nextWarm.size > 10_000) nextWarm.clear();
    }
    nextWarm.set(restaurantId, Number.POSITIVE_INFINITY);
    const spaced = (listing?: Listing) => {
      const now = performance.now();
      const wait = listing && listing.bytes > maxBytes ? TOO_LARGE_BACKOFF : WARM_SPACING * (now - started);
      nextWarm.set(restaurantId, now + wait);
    };
    load(restaurantId, version, 'product').then(spaced, () => spaced());
  }

  return {
    /** The listing's JSON. */
    async listing(restaurant: Restaurant): Promise<Buffer> {
      const restaurantId = restaurant.id;
      const version = (await restaurant.state())?.catalog_version;
      // No such restaurant (a token outliving it): nothing to keep.
      if (version === undefined) return (await render(restaurantId, 'listing')).body;
      reads.inc({ source: cache.held(restaurantId)?.version === version ? 'memory' : 'database' });
      return (await load(restaurantId, version, 'listing')).body;
    },

    /** The product's JSON from the listing of the current version, or its row mapped for the serialiser. */
    async product(restaurant: Restaurant, id: number): Promise<Buffer | ProductResponse> {
      const restaurantId = restaurant.id;
      const held = cache.held(restaurantId);
      if (held && !behind.has(held)) {
        const version = (await restaurant.state())?.catalog_version;
        if (version === undefined) throw errors.productNotFound();
        if (version === held.version) {
          // A product the listing lacks is in a removed category, or none: its row says which.
          const bytes = productDetail(held, id);
          if (bytes) return bytes;
        } else {
          behind.add(held);
          warm(restaurantId, version);
        }
        return detail(await findProduct(db, restaurantId, id));
      }
      const found = await findProductWithVersion(db, restaurantId, id);
      if (!found) throw errors.productNotFound();
      warm(restaurantId, found.version);
      return detail(found.row);
    },
  };
}
