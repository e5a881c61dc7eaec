import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { openDatabase } from '../../../src/db/database.ts';
import { buildTestApp } from '../../support/app.ts';
import { addProduct } from '../../support/catalog-world.ts';
import { createTestDatabase, testDatabaseUrl, testPooler } from '../../support/database.ts';
import { catalogApp } from './helpers.ts';

test('concurrent product writes', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { app, get, history, world, ctx } = await catalogApp(t, { database });
  // A second instance of the service on the same database: its own pool on PostgreSQL.
  const secondHandle = testDatabaseUrl
    ? { ...(await openDatabase({ databaseUrl: database.url, pooler: testPooler })), url: database.url }
    : database;
  if (secondHandle !== database) t.after(() => secondHandle.close());
  const second = (await buildTestApp(t, { database: secondHandle })).app;
  const apps = [app, second];
  const many = async (count: number) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++)
      ids.push(await addProduct(ctx.db, world.restaurantA, world.categories.pizzas));
    return ids;
  };
  const versionOf = async (id: number) => (await get(`/v1/products/${id}`)).json().updated_at as string;
  const inject = (i: number, method: 'PUT', url: string, payload: unknown) =>
    apps[i % 2].inject({ method, url, payload: payload as object, headers: world.auth.write });

  await t.test('of parallel edits with the same expected_updated_at exactly one wins', async () => {
    const [id] = await many(1);
    const expected = await versionOf(id);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        inject(i, 'PUT', `/v1/products/${id}`, { price: 100 + i, expected_updated_at: expected }),
      ),
    );
    const codes = results.map((r) => r.statusCode).sort();
    assert.deepEqual(codes, [200, ...Array(9).fill(409)]);
    const winner = results.find((r) => r.statusCode === 200)!.json();
    for (const loser of results.filter((r) => r.statusCode === 409)) {
      assert.equal(loser.json().key, 'product_update_conflict');
      assert.deepEqual(loser.json().conflicts, [{ index: 0, id, current_updated_at: winner.updated_at }]);
    }
    const current = (await get(`/v1/products/${id}`)).json();
    assert.equal(current.price, winner.price);
    assert.equal((await history(id)).length, 1);
  });

  await t.test('of parallel overlapping batches with the same versions exactly one wins, whole', async () => {
    const ids = await many(5);
    const versions = await Promise.all(ids.map(versionOf));
    const batch = (slice: number[], price: number) =>
      slice.map((i) => ({ id: ids[i], price, expected_updated_at: versions[i] }));
    const results = await Promise.all([
      inject(0, 'PUT', '/v1/products/bulk', batch([0, 1, 2], 11)),
      inject(1, 'PUT', '/v1/products/bulk', batch([4, 3, 2], 22)),
      inject(0, 'PUT', `/v1/products/${ids[2]}`, { price: 33, expected_updated_at: versions[2] }),
    ]);
    const codes = results.map((r) => r.statusCode);
    assert.equal(codes.filter((c) => c === 200).length, 1, codes.join());
    assert.equal(codes.filter((c) => c === 409).length, 2, codes.join());
    const winnerPrice = ['11.00', '22.00', '33.00'][codes.indexOf(200)];
    const prices = await Promise.all(ids.map(async (id) => (await get(`/v1/products/${id}`)).json().price));
    const expected = [
      ['11.00', '11.00', '11.00', '10.00', '10.00'],
      ['10.00', '10.00', '22.00', '22.00', '22.00'],
      ['10.00', '10.00', '33.00', '10.00', '10.00'],
    ][codes.indexOf(200)];
    assert.deepEqual(prices, expected, `winner ${winnerPrice}`);
  });

  await t.test('parallel batches over the same products in opposite orders never deadlock', async () => {
    const ids = await many(20);
    const reversed = [...ids].reverse();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        inject(
          i,
          'PUT',
          '/v1/products/bulk',
          (i % 2 ? reversed : ids).map((id) => ({ id, price: 200 + i })),
        ),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.statusCode),
      Array(8).fill(200),
    );
  });

  await t.test('parallel edits without a version all apply, each with its own later updated_at', async () => {
    const [id] = await many(1);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => inject(i, 'PUT', `/v1/products/${id}`, { price: 300 + i })),
    );
    const versions = results.map((r) => r.json().updated_at as string);
    assert.equal(new Set(versions).size, 6);
    assert.equal((await history(id)).length, 6);
    const latest = versions.reduce((a, b) => (Date.parse(a) > Date.parse(b) ? a : b));
    assert.equal(await versionOf(id), latest);
  });

  await t.test('parallel creations in one category get distinct end positions', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        apps[i % 2].inject({
          method: 'POST',
          url: '/v1/products',
          headers: world.auth.write,
          payload: { name: `Paralela ${i}`, product_category_id: world.categories.drinks, price: 5 },
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.statusCode),
      Array(6).fill(201),
    );
    const rows = await ctx.db
      .selectFrom('products')
      .select('position')
      .where(
        'id',
        'in',
        results.map((r) => r.json().id as number),
      )
      .execute();
    assert.equal(new Set(rows.map((r) => r.position)).size, 6);
  });

  await t.test('runs with two app instances (separate pools on PostgreSQL)', () => {
    assert.notEqual(second, app);
    if (testDatabaseUrl) assert.notEqual(secondHandle.db, database.db);
  });
});

test('an edit chosen as the victim of a deadlock with another writer is 503 with Retry-After and writes nothing', {
  skip: testDatabaseUrl ? false : 'needs PostgreSQL (a second connection)',
}, async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const admin = new pg.Client({ connectionString: database.url });
  const other = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await other.connect();
  try {
    // The service's connections check for a deadlock 2 s into a wait, the other writer's only
    // after a minute: the service's edit is the one PostgreSQL cancels (the other closes the
    // cycle later).
    const name = new URL(database.url).pathname.slice(1);
    await admin.query(`alter database "${name}" set deadlock_timeout = '2s'`);
    const handle = await openDatabase({ databaseUrl: database.url, pooler: testPooler });
    t.after(() => handle.close());
    const { put, get, history, world } = await catalogApp(t, { database: { ...handle, url: database.url } });
    const id = world.products.calabresa;
    const before = (await get(`/v1/products/${id}`)).body;
    // Another writer (an import, say) that takes the category first, then the product.
    await other.query('begin');
    await other.query(`set local deadlock_timeout = '60s'`);
    await other.query('select id from product_categories where id = $1 for update', [
      world.categories.drinks,
    ]);
    // The move locks the product, then waits for the category.
    const edit = put(id, { product_category_id: world.categories.drinks });
    const waiting = async () =>
      (
        await admin.query(
          `select count(*)::int as n from pg_stat_activity
             where datname = current_database() and wait_event_type = 'Lock'`,
        )
      ).rows[0].n as number;
    while ((await waiting()) === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const otherProduct = other.query('select id from products where id = $1 for update', [id]);
    const res = await edit;
    await otherProduct;
    await other.query('rollback');
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().key, 'service_unavailable');
    assert.equal(res.headers['retry-after'], '1');
    assert.equal((await get(`/v1/products/${id}`)).body, before);
    assert.equal((await history(id)).length, 0);
  } finally {
    await other.end();
    await admin.end();
  }
});
