// The feed's pages are kept per instance for restaurants.events_version (feed-cache.ts). A kept
// page is answered again until an event of the restaurant is written or purged, on any instance;
// and on PostgreSQL, a page from which the xmin rule held an event back is never kept: that event
// appears as soon as the older transaction ends, though nothing moved the version.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { register } from 'prom-client';
import { purgeEvents } from '../../../src/modules/events/feed-repository.ts';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { buildTestApp } from '../../support/app.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { eventsWorld, feedSettled } from '../../support/events-world.ts';

async function pagesFromMemory(): Promise<number> {
  const metric = await register.getSingleMetric('event_feed_reads_total')?.get();
  return metric?.values.find((v) => v.labels.source === 'memory')?.value ?? 0;
}

const names = (page: { data: { data: { n: string } }[] }) => page.data.map((e) => e.data.n);

test('a kept page is answered until an event of the restaurant is written or purged, on every instance', async (t) => {
  const world = await eventsWorld(t);
  const two = await buildTestApp(t, { database: world.database });
  const authorization = await world.bearer(['products:read']);
  const page = async (app = world.app, query = '') => {
    await feedSettled(world.db);
    const res = await app.inject({ url: `/v1/events${query}`, headers: { authorization } });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const add = (n: string, restaurant_id = world.restaurant) =>
    recordEvents(world.db, [{ restaurant_id, type: 'product.updated', data: { n } }]);

  await add('one');
  assert.deepEqual(names(await page()), ['one']);
  const before = await pagesFromMemory();
  assert.deepEqual(names(await page()), ['one']);
  assert.equal(await pagesFromMemory(), before + 1, 'the second read is answered from memory');

  await add('elsewhere', world.other);
  assert.deepEqual(names(await page()), ['one']);
  assert.equal(await pagesFromMemory(), before + 2, "another restaurant's event leaves the page kept");

  assert.deepEqual(names(await page(two.app)), ['one']);
  await add('two');
  assert.deepEqual(names(await page()), ['one', 'two']);
  assert.deepEqual(names(await page(two.app)), ['one', 'two'], 'the other instance sees the write too');

  const spelled = await pagesFromMemory();
  await page(world.app, '?types=product.updated,product.created');
  await page(world.app, '?types=product.created,product.updated,product.created');
  assert.equal(
    await pagesFromMemory(),
    spelled + 1,
    'the same types in another order are the same kept page',
  );

  const { next_cursor } = await page(world.app, '?limit=1');
  assert.deepEqual(names(await page(world.app, `?after=${next_cursor}`)), ['two']);
  await sql`update events set created_at = now() - interval '40 days' where data->>'n' = 'one'`.execute(
    world.db,
  );
  await purgeEvents(world.db, 30);
  assert.deepEqual(names(await page()), ['two'], 'a purge moves the version');
  assert.deepEqual(names(await page(two.app)), ['two']);
});

test('an event held back by an older transaction appears when it ends, with the cache on', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL): PGlite has one connection',
}, async (t) => {
  const world = await eventsWorld(t);
  const authorization = await world.bearer(['products:read']);
  const page = async (after = '') =>
    (
      await world.app.inject({ url: `/v1/events${after && `?after=${after}`}`, headers: { authorization } })
    ).json();
  const version = async () =>
    (
      await sql<{
        v: string;
      }>`select events_version as v from restaurants where id = ${world.restaurant}`.execute(world.db)
    ).rows[0].v;
  const older = new pg.Client({ connectionString: world.database.url });
  const writer = new pg.Client({ connectionString: world.database.url });
  await older.connect();
  await writer.connect();
  // The world's database is dropped (with force) by an earlier after-hook than this one.
  for (const client of [older, writer]) client.on('error', () => {});
  t.after(() => Promise.all([older.end(), writer.end()]));

  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 'first' } },
  ]);
  await feedSettled(world.db);
  const start = (await page()).next_cursor;
  assert.deepEqual(names(await page(start)), []);

  // A transaction unrelated to the restaurant takes an xid, then an event of the restaurant commits.
  await older.query('begin');
  await older.query('select pg_current_xact_id()');
  await writer.query(`insert into events (restaurant_id, type, data) values ($1, 'product.updated', $2)`, [
    world.restaurant,
    { n: 'held back' },
  ]);
  const written = await version();
  // Committed, but an older transaction runs: not shown, read after read (none may be kept, nor
  // tagged: a 304 for its tag would hide the event once it shows, the version unmoved).
  const held = await world.app.inject({ url: '/v1/events', headers: { authorization } });
  assert.deepEqual(names(held.json()), ['first']);
  assert.equal(held.headers.etag, undefined, 'a page something was held back from has no tag');
  assert.deepEqual(names(await page()), ['first']);
  assert.deepEqual(names(await page(start)), []);
  assert.deepEqual(names(await page(start)), []);

  await older.query('rollback');
  assert.equal(await version(), written, 'the older transaction ended without moving the version');
  await feedSettled(world.db);
  assert.deepEqual(names(await page(start)), ['held back']);
  const shown = await world.app.inject({ url: '/v1/events', headers: { authorization } });
  assert.deepEqual(names(shown.json()), ['first', 'held back']);
  assert.match(String(shown.headers.etag), /^"[A-Za-z0-9_-]{27}"$/, 'nothing held back: tagged');
});
