// The menu's ETag needs the catalog's schedule boundaries, never the catalog
// (src/modules/menu/boundary-cache.ts): a revalidation is answered 304 without loading it, and the
// boundaries read on their own are those the assembled catalog has, of the version the tag names.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { register } from 'prom-client';
import { type Restaurant, readRestaurantState, restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createBoundaryCache } from '../../../src/modules/menu/boundary-cache.ts';
import { assembleCatalog } from '../../../src/modules/menu/catalog.ts';
import { type CatalogCache, createCatalogCache } from '../../../src/modules/menu/catalog-cache.ts';
import { loadCatalogRows, loadCatalogSchedules } from '../../../src/modules/menu/repository.ts';
import { boundariesOf, scheduleBoundaries } from '../../../src/modules/menu/schedule-window.ts';
import { createMenuService } from '../../../src/modules/menu/service.ts';
import { buildTestApp, testConfig } from '../../support/app.ts';
import { createTestDatabase } from '../../support/database.ts';
import { menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';

const DAY = 24 * 60 * 60 * 1000;

/**
 * A catalog with schedules on what it lists and on what it leaves out: a removed product, a
 * removed category and a packaging one with their products, a product sold in store only.
 */
async function scheduledWorld(db: Parameters<typeof menuWorld>[0]) {
  const world = await menuWorld(db);
  const lunch = await world.category({
    name: 'Almoço',
    schedules: [{ weekday: 1, start: '11:00', end: '15:00' }],
  });
  const always = await world.category({ name: 'Bebidas' });
  const gone = await world.category({
    name: 'Antiga',
    removed_at: new Date(),
    schedules: [{ weekday: 2, start: '07:10', end: '07:20' }],
  });
  const packaging = await world.category({
    name: 'Embalagens',
    kind: 'packaging',
    schedules: [{ weekday: 2, start: '08:10', end: '08:20' }],
  });
  await world.product(lunch, {
    name: 'Executivo',
    schedules: [{ weekday: 1, start: '12:00', end: '14:30' }],
  });
  await world.product(always, {
    name: 'Jantar',
    schedules: [
      { weekday: 3, start: '18:00', end: '23:00' },
      { weekday: 6, start: '22:00', end: '24:00' },
    ],
  });
  // The same schedule twice, and one of a product the delivery channel does not sell.
  await world.product(always, { name: 'Sopa', schedules: [{ weekday: 3, start: '18:00', end: '23:00' }] });
  await world.product(always, {
    name: 'Balcão',
    available_in_delivery: false,
    schedules: [{ weekday: 6, start: '08:00', end: '09:15' }],
  });
  await world.product(always, {
    name: 'Removido',
    removed_at: new Date(),
    schedules: [{ weekday: 2, start: '09:10', end: '09:20' }],
  });
  await world.product(gone, { name: 'Órfão', schedules: [{ weekday: 2, start: '10:10', end: '10:20' }] });
  await world.product(packaging, {
    name: 'Caixa',
    schedules: [{ weekday: 2, start: '11:10', end: '11:20' }],
  });
  return world;
}

/** A catalog cache that counts the catalogs taken from it (found in memory or loaded). */
function counted(cache: CatalogCache) {
  const asked = { count: 0 };
  const spy: CatalogCache = {
    ...cache,
    get: (...args) => {
      asked.count++;
      return cache.get(...args);
    },
    current: (...args) => {
      const found = cache.current(...args);
      if (found) asked.count++;
      return found;
    },
  };
  return { asked, cache: spy };
}

/** A menu service that keeps nothing: every tag must find its boundaries anew. */
function coldService(db: Parameters<typeof menuWorld>[0]) {
  const { asked, cache } = counted(createCatalogCache(0));
  return { asked, menu: createMenuService(db, cache, createBoundaryCache(0)) };
}

test('the boundaries read on their own are those of the assembled catalog, on either channel', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const world = await scheduledWorld(database.db);
  const rows = await loadCatalogRows(database.db, world.restaurantId);
  const read = await loadCatalogSchedules(database.db, world.restaurantId);
  assert.equal(read.version, rows.version);
  const minutes = [...scheduleBoundaries([read.schedules])];
  for (const channel of ['in_store', 'delivery'] as const)
    assert.deepEqual(minutes, [...boundariesOf(assembleCatalog(rows, channel))], channel);
  // Monday 11:00 and 15:00 (the category), Saturday 08:00 (in store only), Saturday 24:00 (week 0).
  for (const minute of [1 * 1440 + 660, 1 * 1440 + 900, 6 * 1440 + 480, 0])
    assert.ok(minutes.includes(minute), String(minute));
  // Nothing of Tuesday: those schedules are on rows the catalog does not list.
  assert.ok(
    minutes.every((minute) => minute < 2 * 1440 || minute >= 3 * 1440),
    String(minutes),
  );
});

test('a tag needs no catalog, and equals the tag the catalog gives on both sides of every boundary', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const world = await scheduledWorld(database.db);
  const warm = createMenuService(database.db, createCatalogCache(), createBoundaryCache(0));
  const cold = coldService(database.db);
  const fresh = () => restaurantOf(database.db, world.restaurantId);
  await warm.read(fresh(), {});
  const { schedules } = await loadCatalogSchedules(database.db, world.restaurantId);
  // São Paulo is UTC-3 all year: Sunday 2026-03-01 00:00 local is 03:00 UTC.
  const sunday = Date.parse('2026-03-01T03:00:00Z');
  let previous: string | undefined;
  for (const minute of scheduleBoundaries([schedules]))
    for (const offset of [-1, 0]) {
      t.mock.timers.reset();
      t.mock.timers.enable({
        apis: ['Date'],
        now: sunday + (minute + offset) * 60_000 + (minute ? 0 : 7 * DAY),
      });
      for (const query of [{}, { channel: 'delivery' as const }]) {
        const tag = await cold.menu.tag(fresh(), query);
        assert.equal(tag, await warm.tag(fresh(), query), `minute ${minute + offset}`);
        if (query.channel) continue;
        if (offset === 0) assert.notEqual(tag, previous, `the boundary at minute ${minute}`);
        previous = tag;
      }
    }
  t.mock.timers.reset();
  assert.equal(cold.asked.count, 0, 'catalogs asked of the cache');
});

test('every catalog write changes the tag read without the catalog', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  const world = await scheduledWorld(db);
  const { asked, menu } = coldService(db);
  const tag = () => menu.tag(restaurantOf(db, world.restaurantId), {});
  const tags = [await tag()];
  const writes = [
    sql`update products set price = price + 1 where restaurant_id = ${world.restaurantId} and name = 'Sopa'`,
    sql`update products set schedules = '[]' where restaurant_id = ${world.restaurantId} and name = 'Sopa'`,
    sql`update product_categories set schedules = '[{"weekday": 4, "start": "10:00", "end": "11:00"}]'
        where restaurant_id = ${world.restaurantId} and name = 'Bebidas'`,
  ];
  for (const write of writes) {
    await write.execute(db);
    const next = await tag();
    assert.ok(!tags.includes(next), write.compile(db).sql);
    tags.push(next);
  }
  assert.equal(asked.count, 0);
});

test('a tag never names a catalog version with the boundaries of another', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  const world = await scheduledWorld(db);
  const { asked, menu } = coldService(db);
  const stale = await readRestaurantState(db, world.restaurantId);
  assert.ok(stale);
  // A write after the request read its state: a boundary at the request's instant, a new version.
  t.mock.timers.enable({ apis: ['Date'], now: new Date('2026-03-05T13:00:00Z') });
  const category = await world.category({
    name: 'Quinta',
    schedules: [{ weekday: 4, start: '10:00', end: '11:00' }],
  });
  await world.product(category, { name: 'Café' });
  const late: Restaurant = restaurantOf(db, world.restaurantId, stale);
  const tag = await menu.tag(late, {});
  // The boundaries read saw the new version: the tag is the catalog's, loaded as the answer is.
  assert.equal(asked.count, 1);
  assert.equal(tag, await menu.tag(restaurantOf(db, world.restaurantId), {}));
  // Its answer is made from that same catalog.
  await menu.read(late, {});
  assert.equal(asked.count, 1);
  t.mock.timers.reset();
});

async function menuReads(source: string, metric = 'menu_catalog_reads_total'): Promise<number> {
  const values = (await register.getSingleMetric(metric)?.get())?.values ?? [];
  return values.find((v) => v.labels.source === source)?.value ?? 0;
}

test('a revalidation answers 304 without loading the catalog, after it was evicted or on a cold instance', async (t) => {
  // A menu cache of 0 MiB: every catalog is dropped as soon as its read is answered.
  const config = { cacheBytes: { ...testConfig().cacheBytes, menu: 0 }, rateLimitPerMinute: 1000 };
  const { app, ctx, database } = await buildTestApp(t, { config });
  const world = await scheduledWorld(ctx.db);
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);
  const first = await menuGet(app, authorization);
  assert.equal(first.statusCode, 200);
  const etag = String(first.headers.etag);
  const revalidate = (instance = app) =>
    instance.inject({ method: 'GET', url: '/v1/menu', headers: { authorization, 'if-none-match': etag } });

  const loads = await menuReads('database');
  const queries = await menuReads('database', 'menu_boundaries_reads_total');
  for (let i = 0; i < 3; i++) assert.equal((await revalidate()).statusCode, 304);
  assert.equal((await menuReads('database')) - loads, 0, 'catalogs loaded');
  assert.equal((await menuReads('database', 'menu_boundaries_reads_total')) - queries, 0, 'boundary queries');

  // Another instance, which holds nothing: one query of the boundaries, still no catalog.
  const cold = await buildTestApp(t, { database, config });
  for (let i = 0; i < 3; i++) assert.equal((await revalidate(cold.app)).statusCode, 304);
  assert.equal((await menuReads('database')) - loads, 0, 'catalogs loaded');
  assert.equal((await menuReads('database', 'menu_boundaries_reads_total')) - queries, 1, 'boundary queries');
  const metrics = (await cold.app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(metrics, /^cache_budget_bytes\{cache="menu_boundaries"\} \d+$/m);
  assert.match(metrics, /^menu_boundaries_reads_total\{source="memory"\} \d+$/m);

  // A write still changes the tag there.
  await sql`update products set price = price + 1 where restaurant_id = ${world.restaurantId}`.execute(
    ctx.db,
  );
  const changed = await revalidate(cold.app);
  assert.equal(changed.statusCode, 200);
  assert.notEqual(changed.headers.etag, etag);
});
