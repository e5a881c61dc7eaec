// menu.updated when the clock crosses a schedule boundary. A menu's answer changes with its
// writes (whose transactions write their own menu.updated) and with the time, where a category's
// or product's weekly schedule opens or closes (schedule-window.ts). Every instance runs this job
// (started by src/server.ts, every 15 s); migration 0023's menu_boundary_marks keeps, per
// restaurant, the instant up to which boundaries were accounted for and the next one. A tick:
//
// 1. gives a row to restaurants without one (new ones, or all of them after the migration), in
//    batches, computed at the next step without an event: nothing was accounted for before;
// 2. claims, a batch per transaction, the rows whose next boundary has passed or whose
//    restaurant's catalog_version or timezone is no longer the row's (FOR UPDATE SKIP LOCKED: an
//    instance that claims a row decides it alone, and another skips it), reads the restaurant's
//    schedules as they are now (loadCatalogSchedules), writes one menu.updated (source
//    "schedule") when one of their boundaries lies between the row's checked_at and `now`, and
//    stores `now` and the next boundary after it. An event's commit updates the restaurant's row
//    (events_version, migration 0015): the row is taken first, SKIP LOCKED, and a restaurant whose
//    row another transaction holds (a long import) keeps its mark as it was, for a later tick,
//    without holding up the others. Rows that need no event take no restaurant lock.
//
// The boundaries are those of the schedules as they are at the tick: a write that moves a
// schedule is seen by the version, moves next_at and, unless a boundary of the new schedules has
// passed since the last tick, writes nothing (the write sent its own menu.updated). A tick that
// comes late (every instance stopped for a while) writes one event for the boundaries it missed.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { menuUpdated } from '../events/menu-updated.ts';
import { type NewEvent, recordEvents } from '../events/outbox.ts';
import { loadCatalogSchedules } from './repository.ts';
import { nextBoundaryAt, scheduleBoundaries } from './schedule-window.ts';

export type BoundaryJobOptions = {
  /** Rows per transaction (seeded or claimed). */
  batch?: number;
  /** Transactions per step and tick at most: what is left waits for the next tick. */
  maxBatches?: number;
  /** Asked before each transaction: true ends the tick there (the server stopping). */
  stopping?: () => boolean;
};

/**
 * No row lock is waited for (SKIP LOCKED, and the restaurants' rows the commit updates are taken
 * first); a lock still waited for this long (a table's, by a migration) fails the batch, tried again
 * next tick.
 */
const LOCK_TIMEOUT_MS = 5_000;

type Claimed = {
  restaurant_id: number;
  checked_at: Date | null;
  timezone: string;
};

/**
 * One tick at `now`: the number of menu.updated events written. Run it from any number of
 * instances at once: each boundary of a restaurant is written once.
 */
export async function runMenuBoundaries(
  db: Db,
  now: Date = new Date(),
  { batch = 100, maxBatches = 50, stopping = () => false }: BoundaryJobOptions = {},
): Promise<number> {
  for (let i = 0; i < maxBatches && !stopping(); i++) {
    const { rows } = await sql`
      insert into menu_boundary_marks (restaurant_id, catalog_version, timezone)
      select r.id, -1, r.timezone from restaurants r
      where not exists (select 1 from menu_boundary_marks m where m.restaurant_id = r.id)
      order by r.id limit ${batch}
      on conflict (restaurant_id) do nothing
      returning restaurant_id`.execute(db);
    if (rows.length < batch) break;
  }
  let written = 0;
  // Past the last row claimed: a batch whose restaurants are all locked is not claimed again.
  let after = 0;
  for (let i = 0; i < maxBatches && !stopping(); i++) {
    const { claimed, last, events } = await db.transaction().execute(async (trx) => {
      await sql`select set_config('lock_timeout', ${String(LOCK_TIMEOUT_MS)}, true)`.execute(trx);
      const { rows } = await sql<Claimed>`
        select m.restaurant_id, m.checked_at, r.timezone
        from menu_boundary_marks m join restaurants r on r.id = m.restaurant_id
        where m.restaurant_id > ${after}
          and (m.next_at <= ${now} or m.catalog_version <> r.catalog_version or m.timezone <> r.timezone)
        order by m.restaurant_id limit ${batch}
        for update of m skip locked`.execute(trx);
      const events: NewEvent[] = [];
      for (const row of rows) {
        // The schedules and the version in one snapshot: the version stored is the one they are of.
        const { version, schedules } = await loadCatalogSchedules(trx, row.restaurant_id);
        const boundaries = scheduleBoundaries([schedules]);
        const crossed = row.checked_at && nextBoundaryAt(boundaries, row.timezone, row.checked_at);
        if (crossed && crossed <= now) {
          // The lock the commit's update of events_version takes (no key column changes).
          const { rows: held } = await sql`select 1 from restaurants where id = ${row.restaurant_id}
            for no key update skip locked`.execute(trx);
          if (!held.length) continue;
          events.push(menuUpdated(row.restaurant_id, 'schedule'));
        }
        // Never back: an instance whose clock lags, claiming the row after a write, must not
        // account again for a boundary another instance already wrote.
        const checked = row.checked_at && row.checked_at > now ? row.checked_at : now;
        await sql`update menu_boundary_marks
          set catalog_version = ${version ?? 0}, timezone = ${row.timezone}, checked_at = ${checked},
            next_at = ${nextBoundaryAt(boundaries, row.timezone, checked)}
          where restaurant_id = ${row.restaurant_id}`.execute(trx);
      }
      await recordEvents(trx, events);
      return { claimed: rows.length, last: rows.at(-1)?.restaurant_id ?? after, events: events.length };
    });
    written += events;
    after = last;
    if (claimed < batch) break;
  }
  return written;
}

/** Every `intervalMs` (and `firstMs` after the start), a tick; a failed one is logged and the next tries again. */
export function startMenuBoundaryJob(
  db: Db,
  log: (err: unknown) => void,
  {
    intervalMs = 15_000,
    firstMs = 2_000,
    ...options
  }: BoundaryJobOptions & { intervalMs?: number; firstMs?: number } = {},
) {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    // A tick still running (a slow database) is not overlapped by the next.
    if (running || stopped) return;
    running = runMenuBoundaries(db, new Date(), { ...options, stopping: () => stopped })
      .catch(log)
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, firstMs);
  const timer = setInterval(tick, intervalMs);
  first.unref();
  timer.unref();
  return {
    /** Stops the timers and waits for a tick in flight to end its transaction, so the database can close after it. */
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
