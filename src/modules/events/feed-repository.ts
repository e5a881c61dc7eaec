// SQL of the event feed. Commit order: an event is shown only once every transaction that started
// before its own has ended (its xid is below the xmin of the current snapshot), and events are
// walked by (xid, seq). Whatever commits later has an xid at or above that xmin, so it sorts after
// any cursor handed out before: a cursor never skips an event, whichever transaction commits first.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import type { Cursor } from './cursor.ts';
import { EVENT_JSON_SQL } from './outbox.ts';

/**
 * An event's place in commit order, the event as JSON text (EVENT_JSON_SQL), and whether the xmin
 * rule holds it back (`hidden`: committed, but a transaction older than its own runs).
 */
type EventRow = { seq: number; xid: string; json: string; hidden: boolean };

// Held-back events are read too: their xid is at or above the xmin, so they sort after every event
// shown and only ever end the rows; the caller drops them, and learns that the page may grow
// without any new write (feed-cache.ts keeps only pages that nothing held back).
// e.xid, the xid8: a bare xid would name the text column of the select list (text order: '10'
// before '9'), sort every event of the restaurant and let a cursor skip some.
const feedSql = (after: boolean) => `select seq, xid::text as xid,
  ${EVENT_JSON_SQL}::text as json,
  xid >= pg_snapshot_xmin(pg_current_snapshot()) as hidden
from events e
where restaurant_id = $1 and type = any($2::text[])
  ${after ? 'and (xid, seq) > ($4::xid8, $5::bigint)' : ''}
order by e.xid, e.seq limit $3`;

const firstPage = prepared<EventRow>(feedSql(false));
const nextPage = prepared<EventRow>(feedSql(true));

/** Up to `limit` events after `after`, in commit order, ending with those held back if any. */
export async function listEvents(
  db: Db,
  restaurantId: number,
  types: string[],
  after: Cursor | null,
  limit: number,
): Promise<EventRow[]> {
  const { rows } = after
    ? await nextPage(db, [restaurantId, types, limit, after.xid, after.seq])
    : await firstPage(db, [restaurantId, types, limit]);
  return rows;
}

const purged = prepared<{ gone: boolean }>(`select exists (select 1 from event_purges
  where restaurant_id = $1 and type = any($2::text[]) and (xid, seq) > ($3::xid8, $4::bigint)) as gone`);

/**
 * Whether the purge deleted an event of these types after `after`. Asked after the page is read: a
 * purge that committed before the page's statement is seen by this later one, so a page missing a
 * purged event is never answered (one that commits between the two only costs a needless restart).
 */
export async function purgedAfter(
  db: Db,
  restaurantId: number,
  types: string[],
  after: Cursor,
): Promise<boolean> {
  const { rows } = await purged(db, [restaurantId, types, after.xid, after.seq]);
  return rows[0].gone;
}

/**
 * Deletes events (and deliveries with their attempts) older than `days`; returns how many events.
 * By batches of `batch` rows, each its own statement (`db` is the pool: its own transaction): a
 * transaction that deletes holds back, by the xmin rule above, every event committed after it
 * started, of every restaurant, so one delete of a large backlog would stall the whole feed. The
 * statement that deletes events records, per restaurant and type, the last one gone (event_purges).
 * An aborted `stop` ends it before its next statement (the rest waits for the next run).
 */
export async function purgeEvents(db: Db, days: number, batch = 5_000, stop?: AbortSignal): Promise<number> {
  const { rows } = await sql<{
    cutoff: Date;
  }>`select now() - make_interval(days => ${days}) as cutoff`.execute(db);
  const { cutoff } = rows[0];
  const inBatches = async (deleteBatch: () => Promise<number>) => {
    let total = 0;
    for (;;) {
      if (stop?.aborted) return total;
      const deleted = await deleteBatch();
      total += deleted;
      if (deleted < batch) return total;
    }
  };
  await inBatches(async () => {
    const result = await sql`delete from webhook_deliveries where id in (
      select id from webhook_deliveries where created_at < ${cutoff} limit ${batch})`.execute(db);
    return Number(result.numAffectedRows ?? 0);
  });
  return inBatches(async () => {
    const result = await sql<{ deleted: number }>`with gone as (
        delete from events where seq in (select seq from events where created_at < ${cutoff} limit ${batch})
        returning restaurant_id, type, xid, seq
      ), last as (
        select distinct on (restaurant_id, type) restaurant_id, type, xid, seq from gone
        order by restaurant_id, type, xid desc, seq desc
      ), recorded as (
        insert into event_purges as p (restaurant_id, type, xid, seq) select * from last
        on conflict (restaurant_id, type) do update set xid = excluded.xid, seq = excluded.seq
          where (excluded.xid, excluded.seq) > (p.xid, p.seq)
      )
      select count(*)::int as deleted from gone`.execute(db);
    return result.rows[0].deleted;
  });
}
