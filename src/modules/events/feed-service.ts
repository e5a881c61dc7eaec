// GET /v1/events: the restaurant's events the credential may see, in commit order, by pages,
// answered as JSON text (EventsPage of schemas.ts) made from the events' own JSON.
import type { Db } from '../../db/database.ts';
import { errors } from '../../http/errors.ts';
import type { Principal } from '../../http/principal.ts';
import { type Cursor, encodeCursor, expired } from './cursor.ts';
import { type EventType, isEventType, missingScope, readableTypes } from './event-types.ts';
import { listEvents, purgedAfter } from './feed-repository.ts';

/** The event types a page shows: those asked for (each readable, or 403), or all the readable ones. */
/**
 * The types a feed request reads, sorted and each once (so that `a,b`, `b,a` and `a,a,b` are one
 * page in the cache and one ETag): all the credential can read when `types` is absent.
 */
export function requestedTypes(principal: Principal, types: string | undefined): EventType[] {
  if (types === undefined) return readableTypes(principal).toSorted();
  const names = types.split(',').map((t) => t.trim());
  if (names.includes('')) {
    const message = 'has an empty type: separate the types with single commas';
    throw errors.invalidQuery(`Invalid query: types ${message}.`, [{ field: 'types', message }]);
  }
  const unknown = names.filter((name) => !isEventType(name));
  if (unknown.length) {
    const message = `names unknown event types: ${unknown.join(', ')}`;
    throw errors.invalidQuery(`Invalid query: types ${message}.`, [{ field: 'types', message }]);
  }
  const wanted = names as EventType[];
  const missing = missingScope(principal, wanted);
  if (missing) throw errors.insufficientScope(missing);
  return [...new Set(wanted)].sort();
}

export type PageQuery = { types: EventType[]; after: Cursor | null; afterText: string | null; limit: number };

/**
 * A page as the answer's bytes, and whether it is final: false when the xmin rule held back an
 * event that would be on it, which then appears once older transactions end, with no new write.
 */
type RenderedPage = { body: Buffer; final: boolean };

export async function renderFeedPage(db: Db, restaurantId: number, query: PageQuery): Promise<RenderedPage> {
  const { types, after, limit } = query;
  // One row more than the page tells whether another page is ready, without a count.
  const rows = await listEvents(db, restaurantId, types, after, limit + 1);
  // A cursor expires only when an event it would show next is gone, whatever its age.
  if (after && (await purgedAfter(db, restaurantId, types, after))) throw expired();
  const held = rows.findIndex((row) => row.hidden);
  const shown = held === -1 ? rows : rows.slice(0, held);
  const page = shown.slice(0, limit);
  // An empty page gives `after` back (a legacy cursor in today's form: it is valid now, and every
  // purge from now on is recorded).
  const last = page.at(-1) ?? after;
  const next = last ? encodeCursor(last, restaurantId) : null;
  // The events are JSON text already (EVENT_JSON_SQL): the page is assembled, not serialised again.
  const text = `{"data":[${page.map((row) => row.json).join(',')}],"next_cursor":${JSON.stringify(next)},"has_more":${shown.length > limit}}`;
  return { body: Buffer.from(text), final: held === -1 };
}
