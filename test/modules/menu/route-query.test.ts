import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor, sessionFor } from '../../support/tokens.ts';

const productIds = (body: { categories: { products: { id: number }[] }[] }) =>
  body.categories.flatMap((c) => c.products.map((p) => p.id));

test('GET /v1/menu query, credentials and restaurants', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const bella = await menuWorld(ctx.db, { name: 'Cantina Bella' });
  const kai = await menuWorld(ctx.db, { name: 'Sushi Kai' });
  const pizza = await bella.product(await bella.category({ name: 'Pizzas' }), { name: 'Margherita' });
  const temaki = await kai.product(await kai.category({ name: 'Temakis' }), { name: 'Temaki' });
  const reader = await bearerFor(ctx.db, [bella.restaurantId], ['menu:read']);
  const kaiReader = await bearerFor(ctx.db, [kai.restaurantId], ['menu:read']);
  const partner = await bearerFor(ctx.db, [bella.restaurantId, kai.restaurantId], ['menu:read']);
  const productsOnly = await bearerFor(ctx.db, [bella.restaurantId], ['products:read', 'products:write']);

  const invalid: [string, string][] = [
    ['colour=red', 'colour'],
    ['channel=pickup', 'channel'],
    ['channel=IN_STORE', 'channel'],
    ['only_available=1', 'only_available'],
    ['only_available=', 'only_available'],
    ['include_fiscal_info=yes', 'include_fiscal_info'],
    ['category_id=0', 'category_id'],
    ['category_id=abc', 'category_id'],
    ['category_id=1.5', 'category_id'],
    ['category_id=2147483648', 'category_id'],
    [`search=${'a'.repeat(101)}`, 'search'],
    ['at=tomorrow', 'at'],
    ['at=2026-03-06T21:00:00', 'at'], // an instant needs its offset
    ['at=2026-03-06', 'at'],
    ['at=2026-06-30T23:59:60Z', 'at'], // a leap second passes the format, not Date
    ['channel=delivery&channel=in_store', 'channel'],
  ];
  for (const [query, field] of invalid) {
    await t.test(`"${query.slice(0, 40)}" is 400 invalid_query naming ${field}`, async () => {
      const res = await menuGet(app, reader.authorization, query);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().key, 'invalid_query');
      assert.ok(
        res.json().errors.some((e: { field: string }) => e.field === field),
        JSON.stringify(res.json().errors),
      );
    });
  }

  await t.test('category_id is as strict as every other id: only plain digits name a category', async () => {
    const pizzas = (await menuGet(app, reader.authorization)).json().categories[0].id as number;
    const plain = await menuGet(app, reader.authorization, `category_id=${pizzas}`);
    assert.equal(plain.statusCode, 200, plain.body);
    assert.deepEqual(productIds(plain.json()), [pizza]);
    const spellings = [
      ` ${pizzas}`,
      `0${pizzas}`,
      `+${pizzas}`,
      `${pizzas}.0`,
      `0x${pizzas.toString(16)}`,
      '1e3',
    ];
    for (const spelling of spellings) {
      const res = await menuGet(app, reader.authorization, `category_id=${encodeURIComponent(spelling)}`);
      assert.equal(res.statusCode, 400, `"${spelling}": ${res.body}`);
      assert.equal(res.json().key, 'invalid_query');
      assert.deepEqual(res.json().errors, [
        { field: 'category_id', message: 'must be an integer in plain digits' },
      ]);
    }
  });

  await t.test('every invalid parameter is reported at once', async () => {
    const res = await menuGet(app, reader.authorization, 'channel=x&only_available=yes&extra=1');
    const fields = res
      .json()
      .errors.map((e: { field: string }) => e.field)
      .sort();
    assert.deepEqual(fields, ['channel', 'extra', 'only_available']);
  });

  await t.test('a search of exactly 100 characters and an instant with an offset are accepted', async () => {
    const res = await menuGet(
      app,
      reader.authorization,
      `search=${'a'.repeat(100)}&at=2026-03-06T18:00:00-03:00`,
    );
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().evaluated_at, '2026-03-06T21:00:00.000Z');
    const plus = await menuGet(app, reader.authorization, 'at=2026-03-07T06:00:00.5%2B09:00');
    assert.equal(plus.json().evaluated_at, '2026-03-06T21:00:00.500Z');
  });

  await t.test(
    'an at whose instant falls outside the years 0000 to 9999 in UTC is 400, as evaluated_at would not be a date-time',
    async () => {
      for (const at of ['9999-12-31T23:59:59-00:01', '0000-01-01T00:00:00%2B00:01']) {
        const res = await menuGet(app, reader.authorization, `at=${at}`);
        assert.equal(res.statusCode, 400, `${at}: ${res.body}`);
        assert.equal(res.json().key, 'invalid_query');
        assert.deepEqual(
          res.json().errors.map((e: { field: string }) => e.field),
          ['at'],
        );
      }
      for (const [at, evaluated] of [
        ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
        ['0000-01-01T00:01:00%2B00:01', '0000-01-01T00:00:00.000Z'],
      ]) {
        const res = await menuGet(app, reader.authorization, `at=${at}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().evaluated_at, evaluated);
      }
    },
  );

  await t.test('without a credential the menu is 401', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/menu' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().key, 'invalid_token');
  });

  await t.test('a credential without menu:read is 403 insufficient_scope', async () => {
    const res = await menuGet(app, productsOnly.authorization);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'insufficient_scope');
  });

  await t.test('each restaurant sees only its own menu', async () => {
    const mine = (await menuGet(app, reader.authorization)).json();
    assert.equal(mine.restaurant_id, bella.restaurantId);
    assert.deepEqual(productIds(mine), [pizza]);
    const theirs = (await menuGet(app, kaiReader.authorization)).json();
    assert.deepEqual(productIds(theirs), [temaki]);
  });

  await t.test('another restaurant cannot be read by passing its restaurant_id', async () => {
    const res = await menuGet(app, reader.authorization, `restaurant_id=${kai.restaurantId}`);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'restaurant_forbidden');
  });

  await t.test('a partner credential must choose the restaurant and gets that one', async () => {
    const missing = await menuGet(app, partner.authorization);
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().key, 'restaurant_id_required');
    const res = await menuGet(app, partner.authorization, `restaurant_id=${kai.restaurantId}`);
    assert.equal(res.json().restaurant_id, kai.restaurantId);
    assert.deepEqual(productIds(res.json()), [temaki]);
  });

  await t.test('a restaurant session reads its own menu without scopes', async () => {
    const session = sessionFor(bella.restaurantId, ctx.secrets.sessionSecret);
    const res = await menuGet(app, session.authorization);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(productIds(res.json()), [pizza]);
  });
});
