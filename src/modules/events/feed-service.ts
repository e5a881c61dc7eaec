// GET /v1/events: the restaurant's events the credential may see, in commit order, by pages,
// answered as JSON text (EventsPage of schemas.ts) made from the events' own JSON.
import type { Db } from '../../db/database.ts';
import { errors } from '../../http/errors.ts';
import type { Principal } from '../../http/principal.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { type EventType, isEventType, missingScope, readableTypes } from './event-types.ts';
import { listEvents } from './feed-repository.ts';
import type { EventsQueryInput } from './schemas.ts';

function requestedTypes(principal: Principal, types: string | undefined): EventType[] {
  if (types === undefined) return readableTypes(principal);
  const names = types.split(',').map((t) => t.trim());
  const unknown = names.filter((name) => !isEventType(name));
  if (unknown.length) {
    const message = `names unknown event types: ${unknown.join(', ')}`;
    throw errors.invalidQuery(`Invalid query: types ${message}.`, [{ field: 'types', message }]);
  }
  const wanted = names as EventType[];
  const missing = missingScope(principal, wanted);
  if (missing) throw errors.insufficientScope(missing);
  return wanted;
}

export async function eventFeed(
  db: Db,
  restaurantId: number,
  principal: Principal,
  query: EventsQueryInput,
  retentionDays: number,
) {
  const after = query.after === undefined ? null : decodeCursor(query.after, retentionDays);
  const types = requestedTypes(principal, query.types);
  const limit = query.limit ?? 100;
  // One row more than the page tells whether another page is ready, without a count.
  const rows = await listEvents(db, restaurantId, types, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const next = last
    ? encodeCursor({ xid: last.xid, seq: last.seq, at: last.created_at.getTime() })
    : (query.after ?? null);
  // The events are JSON text already (EVENT_JSON): the page is assembled, not serialised again.
  return `{"data":[${page.map((row) => row.json).join(',')}],"next_cursor":${JSON.stringify(next)},"has_more":${rows.length > limit}}`;
}
