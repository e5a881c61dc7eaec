// Two writers on PostgreSQL: the one that took the earlier event id commits last. A reader that
// paged while it was still open must still get its event after the cursor it was handed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { testDatabaseUrl } from '../../support/database.ts';
import { eventsWorld, feedSettled } from '../../support/events-world.ts';

const insert = `insert into events (restaurant_id, type, data) values ($1, 'product.updated', $2) returning seq`;

test('the feed follows commit order', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL)',
}, async (t) => {
  const world = await eventsWorld(t);
  const authorization = await world.bearer(['products:read']);
  const page = async (after: string | null) =>
    (
      await world.app.inject({
        url: `/v1/events${after ? `?after=${after}` : ''}`,
        headers: { authorization },
      })
    ).json();
  const early = new pg.Client({ connectionString: world.database.url });
  const late = new pg.Client({ connectionString: world.database.url });
  await early.connect();
  await late.connect();
  // The world's database is dropped (with force) by an earlier after-hook than this one.
  for (const client of [early, late]) client.on('error', () => {});
  t.after(() => Promise.all([early.end(), late.end()]));

  await t.test('an event committed later with an earlier id is not skipped by a cursor', async () => {
    await early.query('begin');
    const first = await early.query(insert, [world.restaurant, { n: 'early' }]);
    await late.query('begin');
    const second = await late.query(insert, [world.restaurant, { n: 'late' }]);
    assert.ok(Number(first.rows[0].seq) < Number(second.rows[0].seq));
    await late.query('commit');
    const during = await page(null);
    // The later id has committed, but an older transaction is still open: nothing is shown yet.
    assert.deepEqual(during.data, []);
    await early.query('commit');
    await feedSettled(world.db);
    const after = await page(during.next_cursor);
    assert.deepEqual(
      after.data.map((e: { data: { n: string } }) => e.data.n),
      ['early', 'late'],
    );
  });

  await t.test('events behind a cursor handed out are never returned again', async () => {
    await feedSettled(world.db);
    const first = await page(null);
    await late.query('begin');
    await late.query(insert, [world.restaurant, { n: 'third' }]);
    await late.query('commit');
    await feedSettled(world.db);
    const next = await page(first.next_cursor);
    assert.deepEqual(
      next.data.map((e: { data: { n: string } }) => e.data.n),
      ['third'],
    );
  });

  await t.test('a transaction that took its xid first but wrote its event last is shown first', async () => {
    await feedSettled(world.db);
    const start = (await page(null)).next_cursor;
    await early.query('begin');
    await early.query('select pg_current_xact_id()');
    await late.query('begin');
    await late.query(insert, [world.restaurant, { n: 'written first' }]);
    await early.query(insert, [world.restaurant, { n: 'xid first' }]);
    await late.query('commit');
    assert.deepEqual((await page(start)).data, []);
    await early.query('commit');
    await feedSettled(world.db);
    assert.deepEqual(
      (await page(start)).data.map((e: { data: { n: string } }) => e.data.n),
      ['xid first', 'written first'],
    );
  });
});
