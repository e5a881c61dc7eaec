// The outbox: events are rows written by the transaction that makes the change, so an event
// exists exactly when its change committed. The same statement hands each event to every enabled
// endpoint of the restaurant subscribed to its type (a webhook_deliveries row, claimed later by a
// worker); the delivered body is the event as the feed shows it.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { EventType } from './event-types.ts';

export type NewEvent = { restaurant_id: number; type: EventType; data: Record<string, unknown> };

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/** `created_at` as the feed's Date.toISOString() writes it (timestamptz(3): milliseconds). */
export const ISO_INSTANT = sql.raw(ISO);

/** The event as the feed shows it and a webhook sends it, as jsonb, from a row `e` of events (SQL text). */
export const EVENT_JSON_SQL = `jsonb_build_object('id', e.id, 'type', e.type, 'restaurant_id', e.restaurant_id,
  'created_at', to_char(e.created_at at time zone 'UTC', ${ISO}), 'data', e.data)`;

export const EVENT_JSON = sql.raw(EVENT_JSON_SQL);

/**
 * The common table expressions that write the events and their deliveries, for a statement that
 * makes the change itself (one round trip): `with <change>, ${eventCtes(events)} select ...`.
 * `before`, a select of (restaurant_id integer, type text, data jsonb) from the statement's own
 * rows, writes its events ahead of `events` (an edit's product events, from its history rows).
 */
export function eventCtes(events: NewEvent[], before?: RawBuilder<unknown>) {
  const given = sql`select v.restaurant_id, v.type, v.data
      from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as v(restaurant_id integer, type text, data jsonb)`;
  return sql`recorded_events as (
      insert into events (restaurant_id, type, data)
      ${before ? sql`${before} union all ${given}` : given}
      returning id, restaurant_id, type, data, created_at
    ), queued_deliveries as (
      insert into webhook_deliveries (endpoint_id, event_id, event_type, payload)
      select w.id, e.id, e.type, ${EVENT_JSON}
      from recorded_events e
      join webhook_endpoints w on w.restaurant_id = e.restaurant_id and e.type = any(w.events)
        and w.disabled_at is null
    )`;
}

/** Writes the events and their deliveries in one statement; call it inside the change's transaction. */
export async function recordEvents(trx: Db, events: NewEvent[]): Promise<void> {
  if (!events.length) return;
  await sql`with ${eventCtes(events)} select 1`.execute(trx);
}
