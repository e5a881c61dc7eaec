// The listing and the product are rendered ahead (src/modules/catalog/listing.ts): their bytes
// must be the ones the Catalog and Product response schemas' serialiser writes for the same rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { register } from 'prom-client';
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import { restaurantOf } from '../../../src/db/restaurant-state.ts';
import { LISTING_BATCH } from '../../../src/modules/catalog/read-repository.ts';
import { createCatalogReader } from '../../../src/modules/catalog/read-service.ts';
import { addCategory, addProduct } from '../../support/catalog-world.ts';
import { catalogApp } from './helpers.ts';
import { oracleRoutes, schemaValidators } from './oracle.ts';

async function listingReads(source: string): Promise<number> {
  const metric = await register.getSingleMetric('catalog_listing_reads_total')?.get();
  return metric?.values.find((v) => v.labels.source === source)?.value ?? 0;
}

const ALL_FISCAL = Object.fromEntries(FISCAL_COLUMNS.map((c, i) => [c, i % 3 ? `0${i}` : `${i},5 "x"`]));

test('rendered bytes equal the response schema serialiser', async (t) => {
  const { app, ctx, get, world } = await catalogApp(t, {
    routes: oracleRoutes,
    config: { rateLimitPerMinute: 1_000_000 },
  });
  const { restaurantA } = world;
  const db = ctx.db;
  const odd = await addCategory(db, restaurantA, { name: 'Açaí "da casa" \\ 🍧', position: 2 });
  await addCategory(db, restaurantA, { name: 'Vazia', position: 2 }); // same position: by id, no products
  const tricky = {
    name: 'Pão de queijo\tnº 1 "grande" \\ 🧀 com uma descrição bem longa para passar de 42',
    description: 'linha 1\nlinha 2\r\u0001 \u2028 fim',
    price: '1234567.89',
    price_promotion: '0.00',
    delivery_price: null,
    delivery_price_promotion: '9.99',
    available: false,
    available_in_delivery: true,
    sold_off: true,
    use_weight: true,
    has_starting_price: true,
    charge_service_tax: false,
    created_at: '2026-02-03T04:05:06.789Z',
    updated_at: '2026-02-03T04:05:07.001Z',
    ...ALL_FISCAL,
  };
  const trickyId = await addProduct(db, restaurantA, odd, tricky);
  await addProduct(db, restaurantA, odd, { name: 'E', description: '' });
  // More rows than one cursor batch, with multi-byte names, so slots cross chunk boundaries.
  const many = await addCategory(db, restaurantA, { name: 'Muitos', position: 7 });
  await sql`insert into products (restaurant_id, product_category_id, name, description, price, position, ncm, created_at, updated_at)
    select ${restaurantA}, ${many}, 'Esfiha nº ' || i || repeat('ç', i % 5), case when i % 2 = 0 then 'ã' end,
      (i % 97)::numeric / 4, i % 13, case when i % 3 = 0 then lpad(i::text, 8, '0') end,
      timestamptz '2026-01-01 00:00:00Z' + i * interval '1.001 second', now()
    from generate_series(1, ${LISTING_BATCH * 2 + 37}) as i`.execute(db);
  const validate = schemaValidators();
  const expectedListing = async (restaurantId = restaurantA) => {
    const res = await app.inject({ method: 'GET', url: `/oracle/${restaurantId}/products` });
    assert.equal(res.statusCode, 200);
    return res.body;
  };
  const expectedProduct = async (id: number) =>
    (await app.inject({ method: 'GET', url: `/oracle/${restaurantA}/products/${id}` })).body;

  await t.test('the listing, read twice (rendered, then from memory), is the serialiser output', async () => {
    const expected = await expectedListing();
    for (let i = 0; i < 2; i++) {
      const res = await get('/v1/products');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.headers['content-length'], String(Buffer.byteLength(expected)));
      assert.equal(res.body, expected);
    }
    assert.ok(validate.catalog(JSON.parse(expected)), JSON.stringify(validate.catalog.errors));
    const list: { id: number; products: unknown[] }[] = JSON.parse(expected);
    assert.ok(list.some((c) => c.products.length === 0));
    assert.ok((list.find((c) => c.id === many)?.products.length ?? 0) > LISTING_BATCH * 2);
  });

  await t.test('products read from the rendered listing are the serialiser output', async () => {
    await get('/v1/products');
    const list = JSON.parse(await expectedListing());
    const ids: number[] = list.flatMap((c: { products: { id: number }[] }) => c.products.map((p) => p.id));
    assert.ok(ids.includes(trickyId));
    // Every product of the small categories, and one in three of the rest (all chunks).
    for (const id of ids.filter((_, i) => i % 3 === 0 || i < 20 || i >= ids.length - 3)) {
      const res = await get(`/v1/products/${id}`);
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const expected = await expectedProduct(id);
      assert.equal(res.body, expected, `product ${id}`);
    }
    const tricky = (await get(`/v1/products/${trickyId}`)).json();
    assert.ok(validate.product(tricky), JSON.stringify(validate.product.errors));
    assert.equal(tricky.description, 'linha 1\nlinha 2\r\u0001 \u2028 fim');
    assert.equal(tricky.updated_at, '2026-02-03T04:05:07.001Z');
    assert.deepEqual(tricky.fiscal_info, ALL_FISCAL);
  });

  await t.test('a product read before any listing (from its row) is the same bytes', async () => {
    const cold = await catalogApp(t, { routes: oracleRoutes });
    for (const id of Object.values(cold.world.products)) {
      const url = `/oracle/${cold.world.restaurantA}/products/${id}`;
      const expected = await cold.app.inject({ method: 'GET', url });
      const res = await cold.get(`/v1/products/${id}`);
      assert.equal(res.statusCode, expected.statusCode === 404 ? 404 : 200);
      if (res.statusCode === 200) assert.equal(res.body, expected.body);
    }
    assert.equal((await cold.get('/v1/products')).statusCode, 200);
    const { margherita } = cold.world.products;
    const warm = await cold.get(`/v1/products/${margherita}`);
    assert.equal(
      warm.body,
      (await cold.get(`/oracle/${cold.world.restaurantA}/products/${margherita}`)).body,
    );
    assert.ok(validate.product(warm.json()), JSON.stringify(validate.product.errors));
  });

  await t.test(
    'a listing larger than the whole cache is rendered per read, with the same bytes',
    async () => {
      const reader = createCatalogReader(db, 1024);
      const expected = await expectedListing();
      assert.equal((await reader.listing(restaurantOf(db, restaurantA))).toString(), expected);
      assert.equal((await reader.listing(restaurantOf(db, restaurantA))).toString(), expected);
      // Nothing held: the product comes from its row, as an object for the route's serialiser.
      const product = await reader.product(restaurantOf(db, restaurantA), trickyId);
      assert.ok(!Buffer.isBuffer(product));
      assert.deepEqual(product, JSON.parse(await expectedProduct(trickyId)));
    },
  );

  await t.test('a listing read back from its packed form is the same bytes', async () => {
    const expected = await expectedListing();
    // Too large for the unpacked quarter of the budget, so kept packed only.
    const reader = createCatalogReader(db, 2 * Buffer.byteLength(expected));
    assert.equal((await reader.listing(restaurantOf(db, restaurantA))).toString(), expected);
    await new Promise((resolve) => setImmediate(resolve));
    const before = await listingReads('packed');
    assert.equal((await reader.listing(restaurantOf(db, restaurantA))).toString(), expected);
    assert.equal(await listingReads('packed'), before + 1, 'the second read came from the packed form');
  });

  await t.test('a restaurant without categories lists [] and an unknown restaurant too', async () => {
    const empty = await db
      .insertInto('restaurants')
      .values({ name: 'Vazio' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const reader = createCatalogReader(db);
    assert.equal(await expectedListing(empty.id), '[]');
    assert.equal((await reader.listing(restaurantOf(db, empty.id))).toString(), '[]');
    assert.equal((await reader.listing(restaurantOf(db, 2_000_000_000))).toString(), '[]');
  });
});
