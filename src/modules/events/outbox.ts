// The outbox: events are rows written by the transaction that makes the change, so an event
// exists exactly when its change committed. A restaurant with an enabled webhook endpoint at the
// commit also gets one webhook_fanout row per writing transaction, written at commit by the
// events_version trigger (migrations 0015, 0020), and the webhook worker hands that transaction's
// events to the endpoints after the commit (src/modules/webhooks/fanout.ts): a write costs the
// same whatever the number of endpoints. The delivered body is the event as the feed shows it.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { ISO_FORMAT, isoText } from '../../db/iso-instant.ts';
import type { EventType } from './event-types.ts';

export type NewEvent = { restaurant_id: number; type: EventType; data: Record<string, unknown> };

/** `created_at` as the feed's Date.toISOString() writes it (timestamptz(3): milliseconds). */
export const ISO_INSTANT = sql.raw(ISO_FORMAT);

/** The event as the feed shows it and a webhook sends it, as jsonb, from a row `e` of events (SQL text). */
export const EVENT_JSON_SQL = `jsonb_build_object('id', e.id, 'type', e.type, 'restaurant_id', e.restaurant_id,
  'created_at', ${isoText('e.created_at')}, 'data', e.data)`;

export const EVENT_JSON = sql.raw(EVENT_JSON_SQL);

/**
 * The common table expression that writes the events (the commit marks the transaction for the
 * webhook worker), for a statement that makes the change itself (one round trip):
 * `with <change>, ${eventCtes(events)} select ...`. `before`, a select of (restaurant_id integer,
 * type text, data jsonb) from the statement's own rows, writes its events ahead of `events` (an
 * edit's product events, from its history rows).
 */
export function eventCtes(events: NewEvent[], before?: RawBuilder<unknown>) {
  const given = sql`select v.restaurant_id, v.type, v.data
      from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as v(restaurant_id integer, type text, data jsonb)`;
  return sql`recorded_events as (
      insert into events (restaurant_id, type, data)
      ${before ? sql`${before} union all ${given}` : given}
      returning restaurant_id
    )`;
}

/** Writes the events (and the worker's mark) in one statement; call it inside the change's transaction. */
export async function recordEvents(trx: Db, events: NewEvent[]): Promise<void> {
  if (!events.length) return;
  await sql`with ${eventCtes(events)} select 1`.execute(trx);
}
