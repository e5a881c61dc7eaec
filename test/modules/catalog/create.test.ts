import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addCategory, addProduct } from '../../support/catalog-world.ts';
import { catalogApp, EMPTY_FISCAL, PRODUCT_KEYS } from './helpers.ts';

test('POST /v1/products', async (t) => {
  const { post, get, history, world, ctx } = await catalogApp(t);
  const { categories } = world;
  const minimal = { name: 'Quatro Queijos', product_category_id: categories.pizzas, price: 49.9 };

  await t.test('creates with only name, category and price, filling the defaults of 2.1 (201)', async () => {
    const res = await post(minimal);
    assert.equal(res.statusCode, 201);
    const p = res.json();
    assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS);
    assert.equal(p.name, 'Quatro Queijos');
    assert.equal(p.price, '49.90');
    assert.equal(p.restaurant_id, world.restaurantA);
    assert.equal(p.product_category_id, categories.pizzas);
    assert.equal(p.description, null);
    assert.equal(p.price_promotion, null);
    assert.equal(p.delivery_price, null);
    assert.equal(p.delivery_price_promotion, null);
    assert.equal(p.available, true);
    assert.equal(p.available_in_delivery, true);
    assert.equal(p.sold_off, false);
    assert.equal(p.use_weight, false);
    assert.equal(p.has_starting_price, false);
    assert.equal(p.charge_service_tax, true);
    assert.deepEqual(p.fiscal, EMPTY_FISCAL);
    assert.deepEqual(p.fiscal_info, EMPTY_FISCAL);
    assert.equal(p.created_at, new Date(p.created_at).toISOString());
    assert.equal(p.updated_at, p.created_at);
    const read = await get(`/v1/products/${p.id}`);
    assert.deepEqual(read.json(), p);
  });

  await t.test('keeps every optional field sent, false and 0 being real values', async () => {
    const res = await post({
      ...minimal,
      description: 'Mussarela, gorgonzola, parmesão, provolone',
      price_promotion: 0,
      delivery_price: 52,
      delivery_price_promotion: 50.5,
      available: false,
      available_in_delivery: false,
      sold_off: true,
      use_weight: true,
      has_starting_price: true,
      charge_service_tax: false,
    });
    assert.equal(res.statusCode, 201);
    const p = res.json();
    assert.equal(p.description, 'Mussarela, gorgonzola, parmesão, provolone');
    assert.deepEqual(
      [p.price_promotion, p.delivery_price, p.delivery_price_promotion],
      ['0.00', '52.00', '50.50'],
    );
    assert.deepEqual(
      [
        p.available,
        p.available_in_delivery,
        p.sold_off,
        p.use_weight,
        p.has_starting_price,
        p.charge_service_tax,
      ],
      [false, false, true, true, true, false],
    );
  });

  await t.test('trims the name', async () => {
    const res = await post({ ...minimal, name: '  Napolitana \t' });
    assert.equal(res.json().name, 'Napolitana');
  });

  await t.test('puts the product at the end of its category with the category brand', async () => {
    const category = categories.drinks;
    await addProduct(ctx.db, world.restaurantA, category, { position: 40 });
    const res = await post({ ...minimal, product_category_id: category });
    const row = await ctx.db
      .selectFrom('products')
      .select(['position', 'brand_id'])
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { position: 41, brand_id: world.brandA2 });
    const second = await post({ ...minimal, product_category_id: category });
    const row2 = await ctx.db
      .selectFrom('products')
      .select('position')
      .where('id', '=', second.json().id)
      .executeTakeFirstOrThrow();
    assert.equal(row2.position, 42);
  });

  await t.test(
    'a category whose last position is the largest integer still takes products at its end, never a 5xx',
    async () => {
      // The importer accepts positions up to 2147483647 (integer column): the next position must not overflow.
      const category = await addCategory(ctx.db, world.restaurantA, { name: 'Cheia', position: 9 });
      const last = await addProduct(ctx.db, world.restaurantA, category, { position: 2147483647 });
      const res = await post({ ...minimal, product_category_id: category });
      assert.equal(res.statusCode, 201);
      const listed = (await get('/v1/products')).json().find((c: { id: number }) => c.id === category);
      assert.deepEqual(
        listed.products.map((p: { id: number }) => p.id),
        [last, res.json().id],
      );
    },
  );

  await t.test('an unavailable category accepts products', async () => {
    const res = await post({ ...minimal, product_category_id: categories.unavailable });
    assert.equal(res.statusCode, 201);
  });

  await t.test('name, product_category_id and price are required', async () => {
    for (const field of ['name', 'product_category_id', 'price'] as const) {
      const body: Record<string, unknown> = { ...minimal };
      delete body[field];
      const res = await post(body);
      assert.equal(res.statusCode, 400, field);
      assert.equal(res.json().key, 'invalid_body');
      assert.deepEqual(res.json().errors, [{ field, message: 'is required' }]);
    }
  });

  await t.test('price must be greater than 0 on create', async () => {
    for (const price of [0, -1]) {
      const res = await post({ ...minimal, price });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().errors[0].field, 'price');
    }
  });

  await t.test('null is rejected for name, category, price and booleans', async () => {
    for (const field of [
      'name',
      'product_category_id',
      'price',
      'available',
      'sold_off',
      'charge_service_tax',
    ]) {
      const res = await post({ ...minimal, [field]: null });
      assert.equal(res.statusCode, 400, field);
      assert.equal(res.json().errors[0].field, field);
    }
  });

  await t.test('fiscal_info and expected_updated_at are not accepted on create', async () => {
    for (const [field, value] of [
      ['fiscal_info', { ncm: '21069090' }],
      ['expected_updated_at', '2026-01-10T12:00:00.000Z'],
    ] as const) {
      const res = await post({ ...minimal, [field]: value });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().key, 'invalid_body');
      assert.deepEqual(res.json().errors, [{ field, message: 'is accepted only on edit' }]);
    }
  });

  await t.test('read-only and unknown fields are rejected naming the field', async () => {
    for (const field of ['id', 'restaurant_id', 'created_at', 'updated_at', 'fiscal', 'brand_id', 'cost']) {
      const res = await post({ ...minimal, [field]: field === 'fiscal' ? {} : 1 });
      assert.equal(res.statusCode, 400, field);
      assert.equal(res.json().errors[0].field, field);
    }
  });

  await t.test('prices with more than two decimals or as strings are rejected', async () => {
    for (const price of [1.005, '12.50', 'R$ 12,50', 1e-7]) {
      const res = await post({ ...minimal, price });
      assert.equal(res.statusCode, 400, String(price));
      assert.equal(res.json().errors[0].field, 'price');
    }
  });

  await t.test(
    'a removed category or one of another restaurant is 404 product_category_not_found',
    async () => {
      for (const category of [categories.removed, categories.otherRestaurant, 999999]) {
        const res = await post({ ...minimal, product_category_id: category });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().key, 'product_category_not_found');
      }
    },
  );

  await t.test('a restaurant session may create in its restaurant', async () => {
    const res = await post(minimal, world.auth.session);
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().restaurant_id, world.restaurantA);
  });

  await t.test('a credential without products:write gets 403', async () => {
    const res = await post(minimal, world.auth.read);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'insufficient_scope');
  });

  await t.test('the restaurant is never chosen through the body', async () => {
    const res = await post({ ...minimal, restaurant_id: world.restaurantB }, world.auth.partner);
    assert.equal(res.statusCode, 400);
    const inQuery = await post(minimal, world.auth.partner);
    assert.equal(inQuery.statusCode, 400);
    assert.equal(inQuery.json().key, 'restaurant_id_required');
  });

  await t.test('the creation is recorded in the history with its author', async () => {
    const res = await post({ ...minimal, name: 'Histórica' });
    const rows = await history(res.json().id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].operation, 'create');
    assert.deepEqual(rows[0].actor, {
      kind: 'api_key',
      api_key_id: world.auth.write.apiKeyId,
      api_key_name: 'writer',
    });
    const changes = rows[0].changes as { field: string; from: unknown; to: unknown }[];
    assert.deepEqual(
      changes.find((c) => c.field === 'name'),
      { field: 'name', from: null, to: 'Histórica' },
    );
    assert.deepEqual(
      changes.find((c) => c.field === 'price'),
      { field: 'price', from: null, to: '49.90' },
    );
  });
});
