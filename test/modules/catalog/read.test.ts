import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import { addCategory, addProduct, MARGHERITA_FISCAL } from '../../support/catalog-world.ts';
import { catalogApp, EMPTY_FISCAL, PRODUCT_KEYS } from './helpers.ts';

const EXPECTED_FISCAL = { ...EMPTY_FISCAL, ...MARGHERITA_FISCAL };
const LISTED_KEYS = PRODUCT_KEYS.filter((k) => k !== 'fiscal_info');

test('reading products', async (t) => {
  const { get, put, patch, bulk, app, world, ctx } = await catalogApp(t);
  const { products, categories } = world;

  await t.test(
    'GET /v1/products/{id} returns exactly the fields of 2.2 with fiscal and fiscal_info',
    async () => {
      const res = await get(`/v1/products/${products.margherita}`);
      assert.equal(res.statusCode, 200);
      const p = res.json();
      assert.deepEqual(Object.keys(p).sort(), PRODUCT_KEYS);
      assert.deepEqual(Object.keys(p.fiscal), [...FISCAL_COLUMNS]);
      assert.deepEqual(p.fiscal, EXPECTED_FISCAL);
      assert.deepEqual(p.fiscal_info, EXPECTED_FISCAL);
      assert.equal(p.price, '42.90');
      assert.equal(p.delivery_price, '45.90');
      assert.equal(p.updated_at, '2026-01-10T12:00:00.000Z');
      for (const internal of [
        'fiscal_group_id',
        'cost',
        'brand_id',
        'position',
        'is_combo',
        'schedules',
        'removed_at',
      ]) {
        assert.ok(!(internal in p) && !(internal in p.fiscal), internal);
      }
      assert.doesNotMatch(res.body, /12\.34|"77"|:77/);
    },
  );

  await t.test(
    'codes keep leading zeros, fcp_percentual "2" stays "2", text keeps commas and empty strings',
    async () => {
      const { fiscal } = (await get(`/v1/products/${products.margherita}`)).json();
      assert.equal(fiscal.ncm, '02109900');
      assert.equal(fiscal.csosn, '0102');
      assert.equal(fiscal.icms_origem, '0');
      assert.equal(fiscal.fcp_percentual, '2');
      assert.equal(fiscal.aliquota, '18,00');
      assert.equal(fiscal.icms_valor, '');
      assert.equal(fiscal.ibs_cbs_classificacao_tributaria, '000001');
    },
  );

  await t.test('the product id in the path is plain digits: other spellings of it are 400', async () => {
    const id = products.margherita;
    for (const spelling of [` ${id}`, `0${id}`, `+${id}`, `${id}.0`, `0x${id.toString(16)}`, '1e3', 'abc']) {
      const res = await get(`/v1/products/${encodeURIComponent(spelling)}`);
      assert.equal(res.statusCode, 400, `"${spelling}": ${res.body}`);
      assert.equal(res.json().key, 'invalid_parameter');
      assert.deepEqual(res.json().errors, [
        { field: 'productId', message: 'must be an integer in plain digits' },
      ]);
    }
  });

  await t.test('a product without fiscal registration has every attribute null', async () => {
    const p = (await get(`/v1/products/${products.calabresa}`)).json();
    assert.deepEqual(p.fiscal, EMPTY_FISCAL);
    assert.deepEqual(p.fiscal_info, EMPTY_FISCAL);
  });

  await t.test(
    'removed, missing and other restaurant products are 404 product_not_found, never 403',
    async () => {
      for (const id of [products.removed, products.otherRestaurant, products.inRemovedCategory + 100000]) {
        const res = await get(`/v1/products/${id}`);
        assert.equal(res.statusCode, 404);
        assert.deepEqual(res.json(), {
          statusCode: 404,
          message: 'Product not found.',
          key: 'product_not_found',
        });
      }
      const partner = await get(
        `/v1/products/${products.margherita}?restaurant_id=${world.restaurantB}`,
        world.auth.partner,
      );
      assert.equal(partner.statusCode, 404);
    },
  );

  await t.test('a partner credential names the restaurant in the query', async () => {
    const missing = await get(`/v1/products/${products.margherita}`, world.auth.partner);
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().key, 'restaurant_id_required');
    const named = await get(
      `/v1/products/${products.margherita}?restaurant_id=${world.restaurantA}`,
      world.auth.partner,
    );
    assert.equal(named.statusCode, 200);
  });

  await t.test('a restaurant session reads its restaurant; a conflicting restaurant_id is 403', async () => {
    assert.equal((await get(`/v1/products/${products.margherita}`, world.auth.session)).statusCode, 200);
    const other = await get(
      `/v1/products/${products.margherita}?restaurant_id=${world.restaurantB}`,
      world.auth.session,
    );
    assert.equal(other.statusCode, 403);
  });

  await t.test('needs products:read and a bearer token', async () => {
    assert.equal((await get(`/v1/products/${products.margherita}`, world.auth.menuOnly)).statusCode, 403);
    const writeOnly = await get('/v1/products', world.auth.writeOnly);
    assert.equal(writeOnly.statusCode, 403);
    assert.equal(writeOnly.json().key, 'insufficient_scope');
    const anonymous = await app.inject({ method: 'GET', url: `/v1/products/${products.margherita}` });
    assert.equal(anonymous.statusCode, 401);
  });

  await t.test('GET /v1/products lists categories in the legacy shape, by position then id', async () => {
    const res = await get('/v1/products');
    assert.equal(res.statusCode, 200);
    const list = res.json();
    assert.ok(Array.isArray(list));
    for (const category of list) {
      assert.deepEqual(Object.keys(category).sort(), ['available', 'id', 'name', 'position', 'products']);
    }
    assert.deepEqual(
      list.map((c: { id: number }) => c.id),
      [categories.mirror, categories.pizzas, categories.drinks, categories.unavailable, categories.packaging],
    );
    const unavailable = list.find((c: { id: number }) => c.id === categories.unavailable);
    assert.equal(unavailable.available, false);
  });

  await t.test('the listing excludes removed records and other restaurants', async () => {
    const list = (await get('/v1/products')).json();
    const ids = list.flatMap((c: { products: { id: number }[] }) => c.products.map((p) => p.id));
    assert.ok(ids.includes(products.margherita) && ids.includes(products.box));
    for (const hidden of [products.removed, products.inRemovedCategory, products.otherRestaurant]) {
      assert.ok(!ids.includes(hidden), String(hidden));
    }
    assert.ok(
      !list.some((c: { id: number }) => c.id === categories.removed || c.id === categories.otherRestaurant),
    );
  });

  await t.test('listed products carry fiscal (no alias) and no internal column', async () => {
    const list = (await get('/v1/products')).json();
    const pizzas = list.find((c: { id: number }) => c.id === categories.pizzas);
    const margherita = pizzas.products.find((p: { id: number }) => p.id === products.margherita);
    assert.deepEqual(Object.keys(margherita).sort(), LISTED_KEYS);
    assert.deepEqual(margherita.fiscal, EXPECTED_FISCAL);
    const calabresa = pizzas.products.find((p: { id: number }) => p.id === products.calabresa);
    assert.deepEqual(calabresa.fiscal, EMPTY_FISCAL);
  });

  await t.test('products inside a category are ordered by position then id', async () => {
    const category = await addCategory(ctx.db, world.restaurantA, { name: 'Ordem', position: 99 });
    const third = await addProduct(ctx.db, world.restaurantA, category, { position: 2 });
    const first = await addProduct(ctx.db, world.restaurantA, category, { position: 1 });
    const second = await addProduct(ctx.db, world.restaurantA, category, { position: 1 });
    const listed = (await get('/v1/products')).json().find((c: { id: number }) => c.id === category);
    assert.deepEqual(
      listed.products.map((p: { id: number }) => p.id),
      [first, second, third],
    );
  });

  await t.test('the listing accepts only restaurant_id in the query', async () => {
    assert.equal((await get(`/v1/products?restaurant_id=${world.restaurantA}`)).statusCode, 200);
    for (const query of ['category_id=1', 'page=2', 'include_fiscal_info=true']) {
      const res = await get(`/v1/products?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().key, 'invalid_query');
    }
  });

  await t.test('a restaurant session lists its own catalog', async () => {
    const res = await get('/v1/products', world.auth.session);
    assert.equal(res.statusCode, 200);
    const other = (await get('/v1/products', world.auth.writeB)).json();
    assert.deepEqual(
      other.map((c: { id: number }) => c.id),
      [categories.otherRestaurant],
    );
  });

  await t.test('the fiscal projection is the same on every write response', async () => {
    const id = await addProduct(ctx.db, world.restaurantA, categories.pizzas, MARGHERITA_FISCAL);
    const responses = [
      await put(id, { name: 'Projeção' }),
      await patch(id, { available: false }),
      (await bulk([{ id, price: 11 }])).json()[0],
    ];
    for (const response of responses) {
      const p = 'json' in response ? response.json() : response;
      assert.deepEqual(p.fiscal, EXPECTED_FISCAL);
      assert.deepEqual(p.fiscal_info, EXPECTED_FISCAL);
    }
  });
});
