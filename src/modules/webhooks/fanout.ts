// Hands committed events to the endpoints subscribed to them, after the commit (migration 0017
// says why): each webhook_fanout row names a restaurant and a transaction that wrote events of
// it; one statement takes rows (SKIP LOCKED), deletes them and writes a delivery per event and
// endpoint, so with any number of instances a transaction's events are handed out once, and a
// statement that fails hands out nothing and leaves its rows for the next turn.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { EVENT_JSON } from '../events/outbox.ts';

/**
 * Which endpoint `w` an event `e` of its restaurant goes to (SQL): subscribed to its type, enabled,
 * and written by a transaction that committed after the endpoint's creation (or enabling again)
 * did, whatever their xids' order: one its creating statement's snapshot does not see (migration
 * 0020 says why that is exact).
 */
export const SUBSCRIBED = sql.raw(
  'e.type = any(w.events) and w.disabled_at is null and not pg_visible_in_snapshot(e.xid, w.created_snapshot)',
);

/** Transactions handed out by one statement. */
const FANOUT_BATCH = 100;

/** Hands out the events of up to `limit` committed transactions; returns how many transactions. */
export async function fanOut(db: Db, limit = FANOUT_BATCH): Promise<number> {
  const { rows } = await sql<{ taken: number }>`
    with taken as (
      delete from webhook_fanout where (restaurant_id, xid) in (
        select restaurant_id, xid from webhook_fanout limit ${limit} for update skip locked
      )
      returning restaurant_id, xid
    ), queued as (
      insert into webhook_deliveries (endpoint_id, event_id, event_type, payload)
      select w.id, e.id, e.type, ${EVENT_JSON}
      from taken t
      join events e on e.restaurant_id = t.restaurant_id and e.xid = t.xid
      join webhook_endpoints w on w.restaurant_id = e.restaurant_id and ${SUBSCRIBED}
      order by e.seq, w.id
    )
    select count(*)::int as taken from taken`.execute(db);
  return rows[0].taken;
}
