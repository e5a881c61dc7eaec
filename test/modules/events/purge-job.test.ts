import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { purgeEvents } from '../../../src/modules/events/feed-repository.ts';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { startEventPurge } from '../../../src/modules/events/purge-job.ts';
import { eventsWorld } from '../../support/events-world.ts';

test('the purge job removes expired events on its own', async (t) => {
  const world = await eventsWorld(t);
  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 'old' } },
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 'new' } },
  ]);
  await sql`update events set created_at = now() - interval '8 days' where data->>'n' = 'old'`.execute(
    world.db,
  );
  const failures: unknown[] = [];
  const job = startEventPurge(world.db, 7, (err) => failures.push(err), 20);
  t.after(() => job.stop());
  const left = async () =>
    (await sql<{ n: string }>`select data->>'n' as n from events`.execute(world.db)).rows.map((r) => r.n);
  for (let i = 0; i < 200 && (await left()).length > 1; i++) await sleep(25);
  assert.deepEqual(await left(), ['new']);
  await job.stop();
  assert.deepEqual(failures, []);
});

test('the purge deletes in bounded batches, each its own transaction, so it never holds the feed back for long', async (t) => {
  // A transaction that deletes holds back every event committed after it started (the xmin rule
  // of feed-repository.ts), for every restaurant: one delete of all expired rows held the whole
  // feed for as long as it took.
  const world = await eventsWorld(t);
  await recordEvents(
    world.db,
    [1, 2, 3, 4, 5].map((n) => ({
      restaurant_id: world.restaurant,
      type: 'product.updated' as const,
      data: { n },
    })),
  );
  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 'new' } },
  ]);
  await sql`update events set created_at = now() - interval '40 days' where data->>'n' <> 'new'`.execute(
    world.db,
  );
  await sql`create table purged_by (xid xid8 not null)`.execute(world.db);
  await sql`create function log_purge() returns trigger language plpgsql as $$
    begin insert into purged_by values (pg_current_xact_id()); return null; end $$`.execute(world.db);
  await sql`create trigger log_purge after delete on events for each row execute function log_purge()`.execute(
    world.db,
  );
  assert.equal(await purgeEvents(world.db, 30, 2), 5);
  const { rows } = await sql<{ n: number }>`select count(distinct xid)::int as n from purged_by`.execute(
    world.db,
  );
  assert.equal(rows[0].n, 3);
  const left = await sql<{ n: string }>`select data->>'n' as n from events`.execute(world.db);
  assert.deepEqual(
    left.rows.map((r) => r.n),
    ['new'],
  );
});

test('the purge records, in the statement that deletes, the last event of each restaurant and type it removed', async (t) => {
  const world = await eventsWorld(t);
  const { db, restaurant, other } = world;
  const write = (restaurant_id: number, type: 'product.updated' | 'menu.updated', n: number) =>
    recordEvents(db, [{ restaurant_id, type, data: { n } }]);
  for (const n of [1, 2, 3]) await write(restaurant, 'product.updated', n);
  await write(restaurant, 'menu.updated', 4);
  await write(other, 'product.updated', 5);
  await write(restaurant, 'product.updated', 6);
  await sql`update events set created_at = now() - interval '40 days' where (data->>'n')::int < 6`.execute(
    db,
  );
  const place = async (n: number) =>
    (
      await sql<{ xid: string; seq: string }>`select xid::text as xid, seq::text as seq
        from events where (data->>'n')::int = ${n}`.execute(db)
    ).rows[0];
  const expected = [
    { restaurant_id: restaurant, type: 'menu.updated', ...(await place(4)) },
    { restaurant_id: restaurant, type: 'product.updated', ...(await place(3)) },
    { restaurant_id: other, type: 'product.updated', ...(await place(5)) },
  ];
  // Batches of one delete in any order: the record only ever moves forward.
  assert.equal(await purgeEvents(db, 30, 1), 5);
  const { rows } = await sql`select restaurant_id, type, xid::text as xid, seq::text as seq
    from event_purges order by restaurant_id, type`.execute(db);
  assert.deepEqual(rows, expected);
});

test('stop() ends the purge between two statements and waits for the one running: nothing of it reaches a database the server closes next', async (t) => {
  const world = await eventsWorld(t);
  let started = 0;
  let inFlight: (() => void) | undefined;
  const running = new Promise<void>((resolve) => {
    inFlight = resolve;
  });
  // Each statement of the purge is slow and counted as it starts.
  const db = world.db.withPlugin({
    transformQuery: (args) => {
      started++;
      inFlight?.();
      return args.node;
    },
    transformResult: async (args) => {
      await sleep(30);
      return args.result;
    },
  });
  const failures: unknown[] = [];
  const job = startEventPurge(db, 7, (err) => failures.push(err), 20);
  t.after(() => job.stop());
  await running;
  await job.stop();
  const afterStop = started;
  await sleep(200);
  assert.equal(started, afterStop, 'statements started after stop() returned');
  assert.equal(afterStop, 1, 'the purge went on past the statement running at stop()');
  assert.deepEqual(failures, []);
});
