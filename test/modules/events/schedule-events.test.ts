// menu.updated at schedule boundaries (src/modules/menu/boundary-job.ts): the job is driven
// directly with explicit instants, no waiting. Restaurants are in America/Sao_Paulo (UTC-3, no
// daylight saving): 11:00 there is 14:00Z.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../../../src/db/database.ts';
import type { Schedule } from '../../../src/db/types.ts';
import { runMenuBoundaries, startMenuBoundaryJob } from '../../../src/modules/menu/boundary-job.ts';
import { addRestaurant } from '../../support/catalog-world.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { eventsWorld, feedSettled } from '../../support/events-world.ts';

const EVERY_DAY = (start: string, end: string): Schedule[] =>
  [0, 1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start, end }));

/** Wednesday 2026-03-04 at `time` in São Paulo (UTC-3). */
const at = (time: string) => new Date(`2026-03-04T${time}-03:00`);

async function scheduledCategory(db: Db, restaurant: number, schedules: Schedule[]) {
  const row = await db
    .insertInto('product_categories')
    .values({
      restaurant_id: restaurant,
      brand_id: null,
      name: 'Almoço',
      schedules: JSON.stringify(schedules),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function scheduleEvents(db: Db, restaurant?: number) {
  const { rows } = await sql<{ restaurant_id: number; data: Record<string, unknown> }>`
    select restaurant_id, data from events
    where type = 'menu.updated' and data->>'source' = 'schedule'
      and (${restaurant ?? null}::integer is null or restaurant_id = ${restaurant ?? null}::integer)
    order by seq`.execute(db);
  return rows;
}

async function nextAt(db: Db, restaurant: number) {
  const row = await db
    .selectFrom('menu_boundary_marks')
    .select('next_at')
    .where('restaurant_id', '=', restaurant)
    .executeTakeFirstOrThrow();
  return row.next_at && new Date(row.next_at).toISOString();
}

test('a category served 11:00-15:00 gets one menu.updated at 11:00 and one at 15:00, none between nor before', async (t) => {
  const world = await eventsWorld(t);
  const { db, restaurant } = world;
  await scheduledCategory(db, restaurant, EVERY_DAY('11:00', '15:00'));
  const counts: Record<string, number> = {};
  for (const time of [
    '10:00:00',
    '10:30:00',
    '10:59:59',
    '11:00:00',
    '11:00:15',
    '13:00:00',
    '14:59:59',
    '15:00:07',
    '15:00:30',
  ]) {
    await runMenuBoundaries(db, at(time));
    counts[time] = (await scheduleEvents(db, restaurant)).length;
  }
  assert.deepEqual(counts, {
    '10:00:00': 0,
    '10:30:00': 0,
    '10:59:59': 0,
    '11:00:00': 1,
    '11:00:15': 1,
    '13:00:00': 1,
    '14:59:59': 1,
    '15:00:07': 2,
    '15:00:30': 2,
  });
  const [event] = await scheduleEvents(db, restaurant);
  assert.deepEqual(event.data, { channels: ['in_store', 'delivery'], source: 'schedule' });
  const tomorrow = new Date(at('11:00:00').getTime() + 86_400_000).toISOString();
  assert.equal(await nextAt(db, restaurant), tomorrow, 'the next boundary is tomorrow at 11:00');
});

test('a restaurant without schedules gets no event, and its row waits for no boundary', async (t) => {
  const world = await eventsWorld(t);
  const { db, restaurant, other } = world;
  for (const time of ['00:00:00', '11:00:00', '15:00:00', '23:59:00']) await runMenuBoundaries(db, at(time));
  assert.deepEqual(await scheduleEvents(db), []);
  assert.equal(await nextAt(db, restaurant), null);
  assert.equal(await nextAt(db, other), null);
});

test('a write that changes the schedules moves the next boundary and writes no schedule event of its own', async (t) => {
  const world = await eventsWorld(t);
  const { db, restaurant } = world;
  const category = await scheduledCategory(db, restaurant, EVERY_DAY('11:00', '15:00'));
  await runMenuBoundaries(db, at('10:00:00'));
  assert.equal(await nextAt(db, restaurant), at('11:00:00').toISOString());
  await db
    .updateTable('product_categories')
    .set({ schedules: JSON.stringify(EVERY_DAY('12:00', '15:00')) })
    .where('id', '=', category)
    .execute();
  await runMenuBoundaries(db, at('10:30:00'));
  assert.equal(await nextAt(db, restaurant), at('12:00:00').toISOString());
  await runMenuBoundaries(db, at('11:00:05'));
  assert.deepEqual(await scheduleEvents(db, restaurant), [], 'the old 11:00 boundary is gone');
  await runMenuBoundaries(db, at('12:00:05'));
  assert.equal((await scheduleEvents(db, restaurant)).length, 1, 'the new one is crossed');

  // A write the tick sees only after a boundary of its new schedules passed: that boundary counts.
  await db
    .updateTable('product_categories')
    .set({ schedules: JSON.stringify(EVERY_DAY('12:00', '13:00')) })
    .where('id', '=', category)
    .execute();
  await runMenuBoundaries(db, at('13:00:10'));
  assert.equal((await scheduleEvents(db, restaurant)).length, 2);
  assert.equal(await nextAt(db, restaurant), new Date(at('12:00:00').getTime() + 86_400_000).toISOString());
});

test('restaurants added later get their row, and a timezone change moves the boundaries', async (t) => {
  const world = await eventsWorld(t);
  const { db } = world;
  await runMenuBoundaries(db, at('09:00:00'));
  const late = await addRestaurant(db, 'Boteco');
  await scheduledCategory(db, late, EVERY_DAY('11:00', '15:00'));
  await runMenuBoundaries(db, at('10:00:00'));
  assert.equal(await nextAt(db, late), at('11:00:00').toISOString());
  await db.updateTable('restaurants').set({ timezone: 'America/Manaus' }).where('id', '=', late).execute();
  await runMenuBoundaries(db, at('10:05:00'));
  // 11:00 in Manaus (UTC-4) is 12:00 in São Paulo.
  assert.equal(await nextAt(db, late), at('12:00:00').toISOString());
  await runMenuBoundaries(db, at('11:00:00'));
  assert.deepEqual(await scheduleEvents(db, late), []);
  await runMenuBoundaries(db, at('12:00:00'));
  assert.equal((await scheduleEvents(db, late)).length, 1);
});

test('an instance whose clock lags does not write again a boundary another one wrote', async (t) => {
  const world = await eventsWorld(t);
  const { db, restaurant } = world;
  const category = await scheduledCategory(db, restaurant, EVERY_DAY('11:00', '15:00'));
  await runMenuBoundaries(db, at('10:00:00'));
  await runMenuBoundaries(db, at('11:00:05'));
  // A write, then the lagging instance's tick claims the row first.
  await db
    .updateTable('product_categories')
    .set({ name: 'Almoço executivo' })
    .where('id', '=', category)
    .execute();
  await runMenuBoundaries(db, at('10:59:55'));
  await runMenuBoundaries(db, at('11:00:00'));
  await runMenuBoundaries(db, at('11:00:20'));
  assert.equal((await scheduleEvents(db, restaurant)).length, 1);
});

test('jobs of two instances running at once write each boundary once', async (t) => {
  // On PostgreSQL the two ticks run on two connections of the pool, racing for the same rows in
  // batches of 3; on PGlite the one connection takes them in turns.
  const world = await eventsWorld(t);
  const { db } = world;
  const restaurants: number[] = [];
  for (let i = 0; i < 12; i++) {
    const id = await addRestaurant(db, `Filial ${i}`);
    await scheduledCategory(db, id, EVERY_DAY('11:00', '15:00'));
    restaurants.push(id);
  }
  const both = (time: string) =>
    Promise.all([
      runMenuBoundaries(db, at(time), { batch: 3 }),
      runMenuBoundaries(db, at(time), { batch: 3 }),
    ]);
  await both('10:00:00');
  const [a, b] = await both('11:00:01');
  assert.equal(a + b, restaurants.length);
  await both('11:00:02');
  await both('15:00:00');
  const events = await scheduleEvents(db);
  assert.equal(events.length, 2 * restaurants.length);
  for (const id of restaurants)
    assert.equal(
      events.filter((e) => e.restaurant_id === id).length,
      2,
      `restaurant ${id}: one event per boundary`,
    );
});

test('a restaurant whose row is locked delays only its own schedule events', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL): PGlite has one connection',
}, async (t) => {
  // Two restaurants' rows held (a long import or edit of each) fill the first batch of two.
  const world = await eventsWorld(t);
  const { db } = world;
  const restaurants: number[] = [];
  for (let i = 0; i < 5; i++) {
    const id = await addRestaurant(db, `Filial ${i}`);
    await scheduledCategory(db, id, EVERY_DAY('11:00', '15:00'));
    restaurants.push(id);
  }
  const locked = restaurants.slice(0, 2);
  const free = restaurants.slice(2);
  await runMenuBoundaries(db, at('10:00:00'), { batch: 2 });
  const holder = new pg.Client({ connectionString: world.database.url });
  await holder.connect();
  // The world's database is dropped (with force) by an earlier after-hook than this one.
  holder.on('error', () => {});
  t.after(() => holder.end());
  const eventsOf = (ids: number[]) =>
    Promise.all(ids.map(async (id) => (await scheduleEvents(db, id)).length));

  await holder.query('begin');
  await holder.query('select 1 from restaurants where id = any($1) for update', [locked]);
  const started = performance.now();
  let written: number;
  try {
    written = await runMenuBoundaries(db, at('11:00:01'), { batch: 2 });
  } finally {
    await holder.query('rollback');
  }
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 2_000, `the tick took ${Math.round(elapsed)} ms`);
  assert.equal(written, free.length);
  assert.deepEqual(await eventsOf(free), [1, 1, 1]);
  assert.deepEqual(await eventsOf(locked), [0, 0], 'the locked restaurants wait');

  assert.equal(await runMenuBoundaries(db, at('11:00:16'), { batch: 2 }), locked.length);
  assert.deepEqual(await eventsOf(locked), [1, 1], 'released: their boundary is written at the next tick');
  assert.deepEqual(await eventsOf(free), [1, 1, 1]);
});

test('the schedule event reaches the feed with source "schedule" and both channels', async (t) => {
  const world = await eventsWorld(t);
  const { db, app, restaurant, bearer } = world;
  await scheduledCategory(db, restaurant, EVERY_DAY('11:00', '15:00'));
  await runMenuBoundaries(db, at('10:00:00'));
  await runMenuBoundaries(db, at('11:00:00'));
  await feedSettled(db);
  const res = await app.inject({
    url: `/v1/events?restaurant_id=${restaurant}&types=menu.updated`,
    headers: { authorization: await bearer(['menu:read']) },
  });
  assert.equal(res.statusCode, 200, res.body);
  const menus = res.json().data.filter((e: { data: { source: string } }) => e.data.source === 'schedule');
  assert.equal(menus.length, 1);
  assert.equal(menus[0].restaurant_id, restaurant);
  assert.deepEqual(menus[0].data, { channels: ['in_store', 'delivery'], source: 'schedule' });
});

test('the server job ticks on its own and stops with no tick left running', async (t) => {
  const world = await eventsWorld(t);
  const failures: unknown[] = [];
  const job = startMenuBoundaryJob(world.db, (err) => failures.push(err), { firstMs: 0, intervalMs: 20 });
  t.after(() => job.stop());
  const marked = async () =>
    (await world.db.selectFrom('menu_boundary_marks').select('restaurant_id').execute()).length;
  for (let i = 0; i < 200 && (await marked()) < 2; i++) await sleep(25);
  await job.stop();
  assert.equal(await marked(), 2, 'both restaurants got their row');
  assert.deepEqual(failures, []);
});

test('a tick asked to stop ends before its next transaction', async (t) => {
  const world = await eventsWorld(t);
  let asked = 0;
  // One batch of one row, then stop: the second restaurant waits for a later tick.
  await runMenuBoundaries(world.db, at('10:00:00'), { batch: 1, stopping: () => asked++ > 0 });
  const marked = await world.db.selectFrom('menu_boundary_marks').select('restaurant_id').execute();
  assert.equal(marked.length, 1);
  await runMenuBoundaries(world.db, at('10:00:00'));
  assert.equal(
    (await world.db.selectFrom('menu_boundary_marks').select('restaurant_id').execute()).length,
    2,
  );
});
