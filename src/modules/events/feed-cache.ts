// GET /v1/events answered from rendered pages kept per instance (compressed but for the most
// recently read): one per restaurant, event types, cursor and limit, held for the
// restaurants.events_version it was rendered at, read with the token check (migration 0015 moves
// it in the same transaction as any write to events). A version alone is not enough: the feed shows
// an event only once every older transaction has ended (feed-repository.ts), so a committed event
// can appear later with no write at all. A page is kept only when nothing was held back from it
// (renderFeedPage's `final`); an event still uncommitted then moves the version when it commits.
import { Counter } from 'prom-client';
import type { Db } from '../../db/database.ts';
import type { Restaurant } from '../../db/restaurant-state.ts';
import { type KeptBody, keptBodies } from '../../http/compression.ts';
import type { Principal } from '../../http/principal.ts';
import { createVersionedCache } from '../../lib/versioned-cache.ts';
import { decodeCursor } from './cursor.ts';
import { type PageQuery, renderFeedPage, requestedTypes } from './feed-service.ts';
import type { EventsQueryInput } from './schemas.ts';

const reads = new Counter({
  name: 'event_feed_reads_total',
  help: 'GET /v1/events reads by where the page came from: memory, unpacked from its compressed form, or a render from the database',
  labelNames: ['source'],
});

/** Everything a page depends on besides the data. */
const pageKey = (restaurantId: number, { types, afterText, limit }: PageQuery) =>
  JSON.stringify([restaurantId, types, afterText, limit]);

type EventFeedReader = (
  restaurant: Restaurant,
  principal: Principal,
  query: EventsQueryInput,
  retentionDays: number,
) => Promise<FeedPage>;

/** A page's bytes, and whether it is final: nothing held back, so the same for its events_version (its ETag). */
type FeedPage = { body: Buffer; final: boolean };

/** One per app instance; other instances' writes reach it through events_version. */
export function createEventFeedReader(db: Db, maxBytes: number): EventFeedReader {
  const cache = createVersionedCache<KeptBody, string>({
    maxBytes,
    name: 'event_feed',
    ...keptBodies,
    onRead: (source) => reads.inc({ source }),
  });
  return async (restaurant, principal, query, retentionDays) => {
    // Query errors first (an expired cursor is one), as without the cache.
    const after = query.after === undefined ? null : decodeCursor(query.after, retentionDays, restaurant.id);
    const page: PageQuery = {
      types: requestedTypes(principal, query.types),
      after,
      afterText: query.after ?? null,
      limit: query.limit ?? 100,
    };
    const version = (await restaurant.state())?.events_version;
    const key = pageKey(restaurant.id, page);
    const kept = version === undefined ? undefined : cache.current(key, version);
    if (kept) return { body: kept.body, final: true };
    reads.inc({ source: 'database' });
    const { body, final } = await renderFeedPage(db, restaurant.id, page);
    // No such restaurant (a token outliving it) has nothing to keep.
    if (final && version !== undefined) cache.set(key, { version, body });
    return { body, final };
  };
}
