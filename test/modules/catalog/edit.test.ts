import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addCategory, addProduct, MARGHERITA_FISCAL } from '../../support/catalog-world.ts';
import { catalogApp, PRODUCT_KEYS } from './helpers.ts';

test('PUT /v1/products/{productId}', async (t) => {
  const { put, get, history, world, ctx } = await catalogApp(t);
  const { categories, restaurantA } = world;
  const fresh = (values = {}) =>
    addProduct(ctx.db, restaurantA, categories.pizzas, {
      name: 'Portuguesa',
      description: 'Ovo e cebola',
      price: '40.00',
      price_promotion: '35.00',
      delivery_price: '44.00',
      delivery_price_promotion: '41.00',
      available: false,
      ...values,
    });
  const positionOf = async (id: number) =>
    ctx.db
      .selectFrom('products')
      .select(['position', 'brand_id'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  await t.test(
    'changes only the fields sent and returns the whole product with fiscal and fiscal_info',
    async () => {
      const id = await fresh({ ncm: '02109900' });
      const res = await put(id, { name: 'Portuguesa Especial' });
      assert.equal(res.statusCode, 200);
      const p = res.json();
      assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS);
      assert.equal(p.name, 'Portuguesa Especial');
      assert.equal(p.description, 'Ovo e cebola');
      assert.deepEqual(
        [p.price, p.price_promotion, p.delivery_price, p.delivery_price_promotion],
        ['40.00', '35.00', '44.00', '41.00'],
      );
      assert.equal(p.available, false);
      assert.equal(p.fiscal.ncm, '02109900');
      assert.deepEqual(p.fiscal_info, p.fiscal);
    },
  );

  await t.test('null clears the description and each optional price', async () => {
    const id = await fresh();
    const res = await put(id, {
      description: null,
      price_promotion: null,
      delivery_price: null,
      delivery_price_promotion: null,
    });
    const p = res.json();
    assert.deepEqual(
      [p.description, p.price_promotion, p.delivery_price, p.delivery_price_promotion],
      [null, null, null, null],
    );
    assert.equal(p.price, '40.00');
  });

  await t.test('0 is a real price and false a real value', async () => {
    const id = await fresh({ available: true });
    const p = (
      await put(id, { price: 0, delivery_price: 0, available: false, charge_service_tax: false })
    ).json();
    assert.equal(p.price, '0.00');
    assert.equal(p.delivery_price, '0.00');
    assert.equal(p.available, false);
    assert.equal(p.charge_service_tax, false);
  });

  await t.test('changing price keeps an existing promotion; both are sent to end it', async () => {
    const id = await fresh();
    assert.equal((await put(id, { price: 38 })).json().price_promotion, '35.00');
    const ended = (await put(id, { price: 39, price_promotion: null })).json();
    assert.deepEqual([ended.price, ended.price_promotion], ['39.00', null]);
  });

  await t.test('sold_off does not touch the channel flags', async () => {
    const id = await fresh({ available: false, available_in_delivery: true });
    const on = (await put(id, { sold_off: true })).json();
    assert.deepEqual([on.sold_off, on.available, on.available_in_delivery], [true, false, true]);
    const off = (await put(id, { sold_off: false })).json();
    assert.deepEqual([off.sold_off, off.available, off.available_in_delivery], [false, false, true]);
  });

  await t.test('a category move goes to the end of the destination with its brand', async () => {
    const id = await fresh({ brand_id: world.brandA });
    await addProduct(ctx.db, restaurantA, categories.drinks, { position: 17 });
    const res = await put(id, { product_category_id: categories.drinks });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().product_category_id, categories.drinks);
    assert.deepEqual(await positionOf(id), { position: 18, brand_id: world.brandA2 });
  });

  await t.test(
    'a move into a category whose last position is the largest integer is accepted, never a 5xx',
    async () => {
      // The importer accepts positions up to 2147483647 (integer column): the next position must not overflow.
      const category = await addCategory(ctx.db, restaurantA, { name: 'Cheia', position: 9 });
      await addProduct(ctx.db, restaurantA, category, { position: 2147483647 });
      const id = await fresh();
      const res = await put(id, { product_category_id: category });
      assert.equal(res.statusCode, 200);
      assert.equal((await positionOf(id)).position, 2147483647);
    },
  );

  await t.test('a move into an unavailable category is accepted and takes its (absent) brand', async () => {
    const id = await fresh({ brand_id: world.brandA });
    const res = await put(id, { product_category_id: categories.unavailable });
    assert.equal(res.statusCode, 200);
    assert.equal((await positionOf(id)).brand_id, null);
  });

  await t.test('sending the current category is not a move', async () => {
    const id = await fresh({ position: 3, brand_id: world.brandA });
    await put(id, { product_category_id: categories.pizzas, name: 'Mesma categoria' });
    assert.deepEqual(await positionOf(id), { position: 3, brand_id: world.brandA });
  });

  await t.test(
    'a removed category or one of another restaurant is 404 product_category_not_found',
    async () => {
      const id = await fresh();
      for (const category of [categories.removed, categories.otherRestaurant, 2147483647]) {
        const res = await put(id, { product_category_id: category });
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().key, 'product_category_not_found');
      }
      assert.equal((await get(`/v1/products/${id}`)).json().product_category_id, categories.pizzas);
    },
  );

  await t.test(
    'a removed, missing or other restaurant product is 404 product_not_found, never 403',
    async () => {
      for (const id of [world.products.removed, world.products.otherRestaurant, 999999]) {
        const res = await put(id, { price: 1 });
        assert.equal(res.statusCode, 404, String(id));
        assert.deepEqual(res.json(), {
          statusCode: 404,
          message: 'Product not found.',
          key: 'product_not_found',
        });
      }
      const other = await ctx.db
        .selectFrom('products')
        .select('price')
        .where('id', '=', world.products.otherRestaurant)
        .executeTakeFirstOrThrow();
      assert.equal(other.price, '10.00');
    },
  );

  await t.test('fiscal_info is partial: omitted attributes stay, null clears one', async () => {
    const id = await fresh(MARGHERITA_FISCAL);
    const res = await put(id, { fiscal_info: { cfop: '5405', pis: null, cst: '060' } });
    const fiscal = res.json().fiscal;
    assert.equal(fiscal.cfop, '5405');
    assert.equal(fiscal.pis, null);
    assert.equal(fiscal.cst, '060');
    assert.equal(fiscal.ncm, '02109900');
    assert.equal(fiscal.fcp_percentual, '2');
    assert.equal(fiscal.aliquota, '18,00');
    assert.deepEqual(res.json().fiscal_info, fiscal);
  });

  await t.test('fiscal_info {} next to a real change is accepted', async () => {
    const id = await fresh();
    const res = await put(id, { fiscal_info: {}, name: 'Com fiscal vazio' });
    assert.equal(res.statusCode, 200);
  });

  await t.test('updated_at moves forward on every change, even within one millisecond', async () => {
    const id = await fresh();
    let previous = (await get(`/v1/products/${id}`)).json().updated_at;
    for (let i = 1; i <= 5; i++) {
      const { updated_at } = (await put(id, { price: i })).json();
      assert.ok(Date.parse(updated_at) > Date.parse(previous), `${updated_at} > ${previous}`);
      previous = updated_at;
    }
    await ctx.db
      .updateTable('products')
      .set({ updated_at: new Date(Date.now() + 60_000) })
      .where('id', '=', id)
      .execute();
    const future = (await get(`/v1/products/${id}`)).json().updated_at;
    const next = (await put(id, { price: 99 })).json().updated_at;
    assert.equal(Date.parse(next) - Date.parse(future), 1);
  });

  await t.test(
    'a write equal to the stored values is accepted, keeps updated_at and records nothing',
    async () => {
      const id = await fresh();
      const before = (await get(`/v1/products/${id}`)).json();
      const res = await put(id, {
        name: 'Portuguesa',
        price: 40,
        available: false,
        fiscal_info: { ncm: null },
      });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().updated_at, before.updated_at);
      assert.deepEqual((await history(id)).length, 0);
    },
  );

  await t.test('expected_updated_at equal to the version lets the edit through', async () => {
    const id = await fresh();
    const { updated_at } = (await get(`/v1/products/${id}`)).json();
    const res = await put(id, { price: 41, expected_updated_at: updated_at });
    assert.equal(res.statusCode, 200);
    assert.notEqual(res.json().updated_at, updated_at);
  });

  await t.test('expected_updated_at is compared as an instant, whatever the offset written', async () => {
    const id = await fresh();
    const stored = '2026-01-10T12:00:00.000Z';
    const res = await put(id, { price: 42, expected_updated_at: '2026-01-10T09:00:00-03:00' });
    assert.equal(res.statusCode, 200, res.body);
    assert.notEqual(res.json().updated_at, stored);
  });

  await t.test('a stale expected_updated_at is 409 product_update_conflict and changes nothing', async () => {
    const id = await fresh();
    const before = (await get(`/v1/products/${id}`)).json();
    for (const stale of ['2026-01-10T12:00:00.001Z', '2026-01-10T12:00:00.0004Z', '2020-01-01T00:00:00Z']) {
      const res = await put(id, { price: 1, expected_updated_at: stale });
      assert.equal(res.statusCode, 409, stale);
      assert.equal(res.json().key, 'product_update_conflict');
      assert.deepEqual(res.json().conflicts, [{ index: 0, id, current_updated_at: before.updated_at }]);
    }
    assert.deepEqual((await get(`/v1/products/${id}`)).json(), before);
    assert.equal((await history(id)).length, 0);
  });

  await t.test('a restaurant session edits its own restaurant, not another', async () => {
    const id = await fresh();
    assert.equal((await put(id, { price: 5 }, world.auth.session)).statusCode, 200);
    const other = await put(world.products.otherRestaurant, { price: 5 }, world.auth.session);
    assert.equal(other.statusCode, 404);
  });

  await t.test('the edit is recorded with before and after of the changed fields only', async () => {
    const id = await fresh({ ncm: '02109900' });
    await put(id, {
      name: 'Portuguesa',
      price: 45.5,
      description: null,
      product_category_id: categories.drinks,
      fiscal_info: { ncm: '21069090', cest: null },
    });
    const rows = await history(id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].operation, 'edit');
    assert.equal(rows[0].restaurant_id, restaurantA);
    assert.deepEqual(rows[0].actor, {
      kind: 'api_key',
      api_key_id: world.auth.write.apiKeyId,
      api_key_name: 'writer',
    });
    assert.deepEqual(rows[0].changes, [
      { field: 'description', from: 'Ovo e cebola', to: null },
      { field: 'product_category_id', from: categories.pizzas, to: categories.drinks },
      { field: 'price', from: '40.00', to: '45.50' },
      { field: 'fiscal_info.ncm', from: '02109900', to: '21069090' },
    ]);
  });

  await t.test('a session edit records the session, never its token', async () => {
    const id = await fresh();
    await put(id, { price: 7 }, world.auth.session);
    const [row] = await history(id);
    assert.equal((row.actor as { kind: string }).kind, 'restaurant_session');
    assert.doesNotMatch(JSON.stringify(row.actor), new RegExp(world.auth.session.authorization.slice(7, 40)));
  });
});
