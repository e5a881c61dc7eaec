import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { addProduct } from '../../support/catalog-world.ts';
import { createTestDatabase } from '../../support/database.ts';
import { catalogApp, PRODUCT_KEYS } from './helpers.ts';

/** Counts the statements run through the app's database: built ones and prepared ones alike. */
class StatementCounter implements KyselyPlugin {
  count = 0;
  transformQuery(args: PluginTransformQueryArgs) {
    return args.node;
  }
  async transformResult(args: PluginTransformResultArgs) {
    this.count++;
    return args.result;
  }
}

test('PUT /v1/products/bulk', async (t) => {
  const counter = new StatementCounter();
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { bulk, get, history, world, ctx } = await catalogApp(t, {
    database: { ...database, db: database.db.withPlugin(counter) },
  });
  const { categories, restaurantA } = world;
  const many = async (count: number, values = {}) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) {
      ids.push(await addProduct(ctx.db, restaurantA, categories.pizzas, { name: `P${i}`, ...values }));
    }
    return ids;
  };
  const snapshot = async (ids: number[]) =>
    Promise.all(ids.map(async (id) => (await get(`/v1/products/${id}`)).json()));

  await t.test('edits every object and returns the products in the order received', async () => {
    const [a, b, c] = await many(3);
    const res = await bulk([
      { id: c, price: 3 },
      { id: a, name: 'Primeiro', fiscal_info: { ncm: '0101' } },
      { id: b, available: false },
    ]);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(
      body.map((p: { id: number }) => p.id),
      [c, a, b],
    );
    for (const p of body) assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS);
    assert.equal(body[0].price, '3.00');
    assert.equal(body[1].name, 'Primeiro');
    assert.equal(body[1].fiscal.ncm, '0101');
    assert.deepEqual(body[1].fiscal_info, body[1].fiscal);
    assert.equal(body[2].available, false);
    assert.equal((await get(`/v1/products/${c}`)).json().price, '3.00');
  });

  await t.test(
    'answers each product as a read returns it afterwards, every kind of field edited',
    async () => {
      // The write reads back only the new versions: every other value answered is the one sent.
      const ids = await many(4, { description: 'antes', price_promotion: '9.90' });
      const res = await bulk([
        {
          id: ids[0],
          name: 'Açaí 500 ml “grande” \u{1F600}',
          description: null,
          price: 0.1,
          price_promotion: null,
        },
        { id: ids[1], delivery_price: 12, delivery_price_promotion: 11.5, sold_off: true, use_weight: true },
        {
          id: ids[2],
          product_category_id: world.categories.drinks,
          charge_service_tax: false,
          has_starting_price: true,
        },
        {
          id: ids[3],
          available_in_delivery: false,
          fiscal_info: { ncm: '22021000', cfop: null, aliquota: '18.00' },
        },
      ]);
      assert.equal(res.statusCode, 200);
      const answered = res.json();
      assert.deepEqual(answered, await snapshot(ids));
      assert.equal(answered[0].price, '0.10');
      assert.equal(answered[1].delivery_price_promotion, '11.50');
      for (const product of answered) assert.ok(product.updated_at > product.created_at);
    },
  );

  await t.test('the body must be a bare array of 1 to 100 objects', async () => {
    const [a] = await many(1);
    for (const body of [{ id: a, price: 1 }, { products: [{ id: a, price: 1 }] }, []]) {
      const res = await bulk(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().key, 'invalid_body');
    }
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ id: i + 1, price: 1 }));
    assert.equal((await bulk(tooMany)).statusCode, 400);
  });

  await t.test('every object needs an integer id', async () => {
    const [a] = await many(1);
    const res = await bulk([{ id: a, price: 1 }, { price: 2 }, { id: '7', price: 3 }]);
    assert.equal(res.statusCode, 400);
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('[1].id') && fields.includes('[2].id'), fields.join());
  });

  await t.test(
    'repeated ids are 400 duplicate_product_ids even when they change different fields',
    async () => {
      const [a, b] = await many(2);
      const res = await bulk([
        { id: a, price: 1 },
        { id: b, price: 2 },
        { id: a, name: 'Outro campo' },
      ]);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().key, 'duplicate_product_ids');
      assert.match(res.json().message, new RegExp(String(a)));
    },
  );

  await t.test('one invalid field rejects the batch, naming the index', async () => {
    const ids = await many(5);
    const before = await snapshot(ids);
    const body = ids.map((id, i) => ({ id, price: i === 3 ? 1.005 : 20 }));
    const res = await bulk(body);
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json().errors, [
      { field: '[3].price', message: 'must be a JSON number with at most two decimals' },
    ]);
    assert.deepEqual(await snapshot(ids), before);
  });

  await t.test('schema errors name the index too', async () => {
    const ids = await many(3);
    const res = await bulk([
      { id: ids[0], price: 1 },
      { id: ids[1], price: null },
      { id: ids[2], colour: 'x' },
    ]);
    assert.equal(res.statusCode, 400);
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes('[1].price') && fields.includes('[2].colour'), fields.join());
  });

  await t.test('read-only fields are rejected per object', async () => {
    const [a, b] = await many(2);
    const res = await bulk([
      { id: a, price: 1 },
      { id: b, price: 2, updated_at: 'x' },
    ]);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].field, '[1].updated_at');
  });

  await t.test('an object without a change is 400 product_changes_required naming the index', async () => {
    const ids = await many(3);
    const before = await snapshot(ids);
    const res = await bulk([
      { id: ids[0], price: 1 },
      { id: ids[1], expected_updated_at: before[1].updated_at, fiscal_info: {} },
      { id: ids[2] },
    ]);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'product_changes_required');
    assert.deepEqual(
      res.json().errors.map((e: { field: string }) => e.field),
      ['[1]', '[2]'],
    );
    assert.deepEqual(await snapshot(ids), before);
  });

  await t.test(
    'a missing product at index 50 rejects the whole batch with 404 product_not_found',
    async () => {
      const ids = await many(60);
      const before = await snapshot(ids);
      const body = ids.map((id) => ({ id, price: 77 }));
      body[50] = { id: world.products.otherRestaurant, price: 77 };
      const res = await bulk(body);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().key, 'product_not_found');
      assert.deepEqual(res.json().errors, [{ field: '[50].id', message: 'product not found' }]);
      assert.deepEqual(await snapshot(ids), before);
      for (const id of ids.slice(0, 3)) assert.equal((await history(id)).length, 0);
    },
  );

  await t.test('a removed product in the batch is 404 product_not_found', async () => {
    const [a] = await many(1);
    const res = await bulk([
      { id: a, price: 1 },
      { id: world.products.removed, price: 1 },
    ]);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().errors[0].field, '[1].id');
  });

  await t.test('a missing category rejects the batch with 404 product_category_not_found', async () => {
    const ids = await many(3);
    const before = await snapshot(ids);
    const res = await bulk([
      { id: ids[0], product_category_id: categories.drinks },
      { id: ids[1], product_category_id: categories.removed },
      { id: ids[2], price: 5 },
    ]);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().key, 'product_category_not_found');
    assert.deepEqual(res.json().errors, [
      { field: '[1].product_category_id', message: 'category not found' },
    ]);
    assert.deepEqual(await snapshot(ids), before);
  });

  await t.test('a stale item in the middle rejects the batch with 409 listing every stale item', async () => {
    const ids = await many(5);
    const before = await snapshot(ids);
    const body = ids.map((id, i) => ({ id, price: 50, expected_updated_at: before[i].updated_at }));
    body[2].expected_updated_at = '2025-12-31T23:59:59.999Z';
    body[4].expected_updated_at = '2026-01-10T12:00:00.001Z';
    const res = await bulk(body);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().key, 'product_update_conflict');
    assert.deepEqual(res.json().conflicts, [
      { index: 2, id: ids[2], current_updated_at: before[2].updated_at },
      { index: 4, id: ids[4], current_updated_at: before[4].updated_at },
    ]);
    assert.deepEqual(await snapshot(ids), before);
    for (const id of ids) assert.equal((await history(id)).length, 0);
  });

  await t.test('moves into one category get consecutive end positions in the order received', async () => {
    const ids = await many(3);
    await addProduct(ctx.db, restaurantA, categories.packaging, { position: 9 });
    const res = await bulk([
      { id: ids[2], product_category_id: categories.packaging },
      { id: ids[0], product_category_id: categories.packaging },
    ]);
    assert.equal(res.statusCode, 200);
    const rows = await ctx.db
      .selectFrom('products')
      .select(['id', 'position'])
      .where('id', 'in', [ids[2], ids[0]])
      .orderBy('position')
      .execute();
    assert.deepEqual(rows, [
      { id: ids[2], position: 10 },
      { id: ids[0], position: 11 },
    ]);
  });

  await t.test('unchanged objects keep their version and only real changes are recorded', async () => {
    const [a, b] = await many(2, { price: '10.00' });
    const before = await snapshot([a, b]);
    const res = await bulk([
      { id: a, price: 10 },
      { id: b, price: 11 },
    ]);
    assert.equal(res.json()[0].updated_at, before[0].updated_at);
    assert.notEqual(res.json()[1].updated_at, before[1].updated_at);
    assert.equal((await history(a)).length, 0);
    const [row] = await history(b);
    assert.equal(row.operation, 'bulk');
    assert.deepEqual(row.changes, [{ field: 'price', from: '10.00', to: '11.00' }]);
  });

  await t.test('a batch runs the same number of statements whatever its size', async () => {
    const measure = async (count: number) => {
      const ids = await many(count);
      const body = ids.map((id, i) => ({
        id,
        price: 30 + i,
        product_category_id: i % 2 ? categories.drinks : categories.pizzas,
        fiscal_info: { ncm: String(i).padStart(8, '0') },
      }));
      counter.count = 0;
      const res = await bulk(body);
      assert.equal(res.statusCode, 200);
      return counter.count;
    };
    const one = await measure(1);
    const hundred = await measure(100);
    // the token's lookup (the request's credential and restaurant), then in the transaction: lock
    // and read the products, lock the categories, read their last positions, one update that
    // records the history too (BEGIN and COMMIT do not go through the plugins)
    assert.equal(one, 5);
    assert.equal(hundred, one);
  });

  await t.test('another restaurant credential cannot reach these products', async () => {
    const [a] = await many(1);
    const res = await bulk([{ id: a, price: 1 }], world.auth.writeB);
    assert.equal(res.statusCode, 404);
  });
});
