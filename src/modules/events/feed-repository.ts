// SQL of the event feed. Commit order: an event is shown only once every transaction that started
// before its own has ended (its xid is below the xmin of the current snapshot), and events are
// walked by (xid, seq). Whatever commits later has an xid at or above that xmin, so it sorts after
// any cursor handed out before: a cursor never skips an event, whichever transaction commits first.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Cursor } from './cursor.ts';
import { EVENT_JSON } from './outbox.ts';

/** An event's place in commit order, its time, and the event as JSON text (EVENT_JSON). */
export type EventRow = { seq: number; xid: string; created_at: Date; json: string };

export async function listEvents(
  db: Db,
  restaurantId: number,
  types: string[],
  after: Cursor | null,
  limit: number,
): Promise<EventRow[]> {
  const from = after ? sql`and (xid, seq) > (${after.xid}::xid8, ${after.seq}::bigint)` : sql``;
  const { rows } = await sql<EventRow>`
    select seq, xid::text as xid, created_at, ${EVENT_JSON}::text as json from events e
    where restaurant_id = ${restaurantId} and type = any(${types}::text[])
      and xid < pg_snapshot_xmin(pg_current_snapshot()) ${from}
    -- e.xid, the xid8: a bare xid would name the text column of the select list (text order:
    -- '10' before '9'), sort every event of the restaurant and let a cursor skip some.
    order by e.xid, e.seq limit ${limit}`.execute(db);
  return rows;
}

/** Deletes events (and deliveries with their attempts) older than `days`; returns how many events. */
export async function purgeEvents(db: Db, days: number): Promise<number> {
  const cutoff = sql`now() - make_interval(days => ${days})`;
  await sql`delete from webhook_deliveries where created_at < ${cutoff}`.execute(db);
  const result = await sql`delete from events where created_at < ${cutoff}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
