// GET /v1/nfe-received answered from rendered lists kept per instance (compressed but for the most
// recently read): one per restaurant and checked query (period, pendente, brand_id: all the answer
// depends on), held for the restaurants.nfe_version it was rendered at. Each read first reads that
// version (with the token check); migration 0010 changes it in the same transaction as any write to
// notes or brands, from any writer, so a write is in the very next read and nothing stale is served.
import { Counter } from 'prom-client';
import type { Db } from '../../db/database.ts';
import type { Restaurant } from '../../db/restaurant-state.ts';
import { type KeptBody, keptBodies } from '../../http/compression.ts';
import { createVersionedCache } from '../../lib/versioned-cache.ts';
import { type NfeListFilter, parseNfeListQuery } from './list-query.ts';
import type { NfeListQuerystring } from './nfe-schema.ts';
import { readReceivedNfeList } from './nfe-service.ts';

const reads = new Counter({
  name: 'nfe_list_reads_total',
  help: 'GET /v1/nfe-received reads by where the list came from: memory, unpacked from its compressed form, or a render from the database',
  labelNames: ['source'],
});

/** Rendered lists of all restaurants and queries kept per instance; a larger list is rendered per read. */
const NFE_LIST_CACHE_BYTES = 16 * 1024 * 1024;

/** Everything the answer depends on besides the data: two queries with one key answer the same bytes. */
function listKey(restaurantId: number, filter: NfeListFilter): string {
  const { start, endInclusive, pending, brandId } = filter;
  return JSON.stringify([restaurantId, start.getTime(), endInclusive.getTime(), pending, brandId ?? null]);
}

/** The body, and whether it is exact for the nfe_version the request read (its ETag's). */
type NfeListReader = (
  restaurant: Restaurant,
  query: NfeListQuerystring,
) => Promise<{ body: Buffer; current: boolean }>;

/** One per app instance; other instances' writes reach it through nfe_version. */
export function createNfeListReader(db: Db, maxBytes = NFE_LIST_CACHE_BYTES): NfeListReader {
  const cache = createVersionedCache<KeptBody, string>({
    maxBytes,
    name: 'nfe_list',
    ...keptBodies,
    onRead: (source) => reads.inc({ source }),
  });
  return async (restaurant, query) => {
    const restaurantId = restaurant.id;
    // Query errors first, as without the cache; a brand error comes from the render and is not kept.
    const filter = parseNfeListQuery(query);
    const version = (await restaurant.state())?.nfe_version;
    // No such restaurant (a token outliving it): nothing to keep.
    if (version === undefined) {
      return { body: (await readReceivedNfeList(db, restaurantId, filter)).body, current: false };
    }
    const key = listKey(restaurantId, filter);
    // The list is read with its version in one snapshot (nfe-service.ts) and kept under that
    // version: when a write lands after the request read `version`, it is a later one.
    const list = await cache.get(key, version, async () => {
      const read = await readReceivedNfeList(db, restaurantId, filter);
      return { version: read.version ?? version, body: read.body };
    });
    return { body: list.body, current: list.version === version };
  };
}
