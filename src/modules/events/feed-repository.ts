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
 * An event's place in commit order, its time, the event as JSON text (EVENT_JSON_SQL), and whether
 * the xmin rule holds it back (`hidden`: committed, but a transaction older than its own runs).
 */
export type EventRow = { seq: number; xid: string; created_at: Date; json: string; hidden: boolean };

// Held-back events are read too: their xid is at or above the xmin, so they sort after every event
// shown and only ever end the rows; the caller drops them, and learns that the page may grow
// without any new write (feed-cache.ts keeps only pages that nothing held back).
// e.xid, the xid8: a bare xid would name the text column of the select list (text order: '10'
// before '9'), sort every event of the restaurant and let a cursor skip some.
const feedSql = (after: boolean) => `select seq, xid::text as xid, created_at,
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

/**
 * Deletes events (and deliveries with their attempts) older than `days`; returns how many events.
 * By batches of `batch` rows, each its own statement (`db` is the pool: its own transaction): a
 * transaction that deletes holds back, by the xmin rule above, every event committed after it
 * started, of every restaurant, so one delete of a large backlog would stall the whole feed.
 */
export async function purgeEvents(db: Db, days: number, batch = 5_000): Promise<number> {
  const { rows } = await sql<{
    cutoff: Date;
  }>`select now() - make_interval(days => ${days}) as cutoff`.execute(db);
  const { cutoff } = rows[0];
  const inBatches = async (table: 'webhook_deliveries' | 'events', key: 'id' | 'seq') => {
    let total = 0;
    for (;;) {
      const result = await sql`delete from ${sql.table(table)} where ${sql.ref(key)} in (
        select ${sql.ref(key)} from ${sql.table(table)} where created_at < ${cutoff} limit ${batch})`.execute(
        db,
      );
      const deleted = Number(result.numAffectedRows ?? 0);
      total += deleted;
      if (deleted < batch) return total;
    }
  };
  await inBatches('webhook_deliveries', 'id');
  return inBatches('events', 'seq');
}
