// GET /v1/products and GET /v1/products/{id} (contract 4.2, 4.3). The listing is rendered once
// per restaurant and catalog version and kept per instance (listing.ts); every read first reads
// the version, so a write committed anywhere, through the routes, the importer or psql, is in the
// very next read on every instance (src/lib/versioned-cache.ts says why).
//
// A product read answers from the listing when one is held for the current version: no query of
// its own (the version comes with the token check, src/db/restaurant-state.ts), no row to parse,
// no serialiser. Otherwise it is one indexed query of that product's row, mapped for the
// serialiser: a product read never renders nor keeps a whole restaurant's catalog, so reads
// spread over many restaurants cost each one row, not a listing.
import { Counter } from 'prom-client';
import type { Db } from '../../db/database.ts';
import type { Restaurant } from '../../db/restaurant-state.ts';
import { bodyAsGzip } from '../../http/compression.ts';
import { errors } from '../../http/errors.ts';
import { createVersionedCache } from '../../lib/versioned-cache.ts';
import { createListingWriter, type Listing, productDetail } from './listing.ts';
import { type MappedRow, mapProduct, type ProductResponse } from './product-map.ts';
import { findProduct, readListing } from './read-repository.ts';

const reads = new Counter({
  name: 'catalog_listing_reads_total',
  help: 'GET /v1/products reads by where the listing came from: memory, unpacked from its compressed form, or a render from the database',
  labelNames: ['source'],
});
const renders = new Counter({
  name: 'catalog_listing_renders_total',
  help: 'Legacy listings rendered for GET /v1/products',
});

/** Rendered listings kept per instance; a restaurant whose listing alone is larger is rendered per read. */
const LISTING_CACHE_BYTES = 32 * 1024 * 1024;

function detail(row: MappedRow | undefined): ProductResponse {
  if (!row) throw errors.productNotFound();
  return mapProduct(row, { alias: true });
}

export function createCatalogReader(db: Db, maxBytes = LISTING_CACHE_BYTES) {
  const cache = createVersionedCache<Listing>({
    maxBytes,
    name: 'listing',
    packed: true,
    packing: bodyAsGzip(),
    onRead: (source) => reads.inc({ source }),
  });

  async function render(restaurantId: number): Promise<Listing> {
    renders.inc();
    const writer = createListingWriter();
    const version = await readListing(db, restaurantId, (rows) => writer.add(rows));
    return writer.finish(version);
  }

  return {
    /** The listing's JSON. */
    async listing(restaurant: Restaurant): Promise<Buffer> {
      const restaurantId = restaurant.id;
      const version = (await restaurant.state())?.catalog_version;
      // No such restaurant (a token outliving it): nothing to keep.
      if (version === undefined) return (await render(restaurantId)).body;
      return (await cache.get(restaurantId, version, () => render(restaurantId))).body;
    },

    /** The product's JSON from the listing held for the current version, or its row mapped for the serialiser. */
    async product(restaurant: Restaurant, id: number): Promise<Buffer | ProductResponse> {
      const version = (await restaurant.state())?.catalog_version;
      if (version === undefined) throw errors.productNotFound();
      const held = cache.held(restaurant.id);
      // A product the listing lacks is in a removed category, or none: its row says which.
      const bytes = held?.version === version ? productDetail(held, id) : undefined;
      return bytes ?? detail(await findProduct(db, restaurant.id, id));
    },
  };
}
