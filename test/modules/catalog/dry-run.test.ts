import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { addProduct } from '../../support/catalog-world.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { catalogApp, PRODUCT_KEYS } from './helpers.ts';

const DRY = '?dry_run=true';

test('dry runs of PUT /v1/products/{productId} and PUT /v1/products/bulk', async (t) => {
  const { app, put, bulk, get, history, world, ctx, database } = await catalogApp(t);
  const { categories, restaurantA, auth } = world;
  const dryBulk = (payload: unknown, authorization = auth.write, query = DRY) =>
    app.inject({
      method: 'PUT',
      url: `/v1/products/bulk${query}`,
      payload: payload as object,
      headers: authorization,
    });
  const fresh = (values = {}) =>
    addProduct(ctx.db, restaurantA, categories.pizzas, {
      name: 'Portuguesa',
      price: '40.00',
      price_promotion: '35.00',
      brand_id: world.brandA,
      position: 4,
      cfop: '5102',
      ...values,
    });
  /** Everything a write could touch, read from the table: the API does not show position and brand. */
  const stored = async (id: number) => ({
    row: await ctx.db
      .selectFrom('products')
      .select(['name', 'price', 'price_promotion', 'product_category_id', 'position', 'brand_id', 'cfop'])
      .select('updated_at')
      .where('id', '=', id)
      .executeTakeFirstOrThrow(),
    history: (await history(id)).length,
  });

  await t.test(
    'answers current, proposed, the changes and expected_updated_at, and writes nothing',
    async () => {
      const id = await fresh();
      const before = await stored(id);
      const detail = (await get(`/v1/products/${id}`)).json();
      const res = await put(`${id}${DRY}`, {
        name: ' Portuguesa Especial ',
        price: 39.9,
        price_promotion: null,
        product_category_id: categories.drinks,
        available: true,
        fiscal_info: { cfop: '5405', cest: null },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['dry_run', 'products']);
      assert.equal(body.dry_run, true);
      const [review] = body.products;
      assert.deepEqual(Object.keys(review).sort(), [
        'changes',
        'current',
        'expected_updated_at',
        'id',
        'proposed',
      ]);
      assert.equal(review.id, id);
      assert.deepEqual(review.current, detail);
      assert.equal(review.expected_updated_at, detail.updated_at);
      assert.deepEqual(review.changes, [
        { field: 'name', from: 'Portuguesa', to: 'Portuguesa Especial' },
        { field: 'product_category_id', from: categories.pizzas, to: categories.drinks },
        { field: 'price', from: '40.00', to: '39.90' },
        { field: 'price_promotion', from: '35.00', to: null },
        { field: 'fiscal_info.cfop', from: '5102', to: '5405' },
      ]);
      assert.deepEqual(Object.keys(review.proposed).sort(), PRODUCT_KEYS);
      assert.deepEqual(review.proposed, {
        ...detail,
        name: 'Portuguesa Especial',
        product_category_id: categories.drinks,
        price: '39.90',
        price_promotion: null,
        fiscal: { ...detail.fiscal, cfop: '5405' },
        fiscal_info: { ...detail.fiscal, cfop: '5405' },
      });
      assert.deepEqual(await stored(id), before);
      assert.deepEqual((await get(`/v1/products/${id}`)).json(), detail);
    },
  );

  await t.test('a bulk dry run answers one review per object in the order received', async () => {
    const [a, b, c] = [await fresh(), await fresh(), await fresh()];
    const before = await Promise.all([a, b, c].map(stored));
    const res = await dryBulk([
      { id: c, sold_off: true },
      { id: a, price: 40 },
      { id: b, price: 41.5, expected_updated_at: before[1].row.updated_at.toISOString() },
    ]);
    assert.equal(res.statusCode, 200, res.body);
    const { products } = res.json();
    assert.deepEqual(
      products.map((p: { id: number }) => p.id),
      [c, a, b],
    );
    assert.deepEqual(products[0].changes, [{ field: 'sold_off', from: false, to: true }]);
    assert.deepEqual(products[1].changes, [], 'a value equal to the stored one is not a change');
    assert.deepEqual(products[1].proposed, products[1].current);
    assert.deepEqual(products[2].changes, [{ field: 'price', from: '40.00', to: '41.50' }]);
    assert.deepEqual(await Promise.all([a, b, c].map(stored)), before);
  });

  await t.test('dry_run=false is the real write; other values are 400 invalid_query', async () => {
    const id = await fresh();
    const real = await put(`${id}?dry_run=false`, { price: 12 });
    assert.equal(real.statusCode, 200);
    assert.equal(real.json().price, '12.00');
    const before = await stored(id);
    for (const value of ['yes', 'TRUE', '1', '', 'true&dry_run=true']) {
      const res = await put(`${id}?dry_run=${value}`, { price: 13 });
      assert.equal(res.statusCode, 400, value);
      assert.equal(res.json().key, 'invalid_query');
      assert.equal(res.json().errors[0].field, 'dry_run');
      assert.equal((await dryBulk([{ id, price: 13 }], auth.write, `?dry_run=${value}`)).statusCode, 400);
    }
    assert.deepEqual(await stored(id), before);
  });

  await t.test('create and availability take no dry_run: 400 and nothing written', async () => {
    const id = await fresh();
    const before = await stored(id);
    const patch = await app.inject({
      method: 'PATCH',
      url: `/v1/products/${id}/availability${DRY}`,
      payload: { available: false },
      headers: auth.write,
    });
    assert.equal(patch.statusCode, 400);
    assert.equal(patch.json().key, 'invalid_query');
    const create = await app.inject({
      method: 'POST',
      url: `/v1/products${DRY}`,
      payload: { name: 'Nova', product_category_id: categories.pizzas, price: 5 },
      headers: auth.write,
    });
    assert.equal(create.statusCode, 400);
    assert.equal(create.json().key, 'invalid_query');
    assert.deepEqual(await stored(id), before);
    const created = await ctx.db.selectFrom('products').select('id').where('name', '=', 'Nova').execute();
    assert.deepEqual(created, []);
  });

  await t.test('restaurant_id is still accepted, and the scope is the write scope', async () => {
    const id = await fresh();
    const partner = await put(`${id}${DRY}&restaurant_id=${restaurantA}`, { price: 1 }, auth.partner);
    assert.equal(partner.statusCode, 200, partner.body);
    const bulkPartner = await dryBulk(
      [{ id, price: 1 }],
      auth.partner,
      `${DRY}&restaurant_id=${restaurantA}`,
    );
    assert.equal(bulkPartner.statusCode, 200);
    assert.equal((await put(`${id}${DRY}`, { price: 1 }, auth.session)).statusCode, 200);
    const readOnly = await put(`${id}${DRY}`, { price: 1 }, auth.read);
    assert.equal(readOnly.statusCode, 403);
    assert.equal(readOnly.json().key, 'insufficient_scope');
    const elsewhere = await put(`${id}${DRY}&restaurant_id=${world.restaurantB}`, { price: 1 }, auth.partner);
    assert.equal(elsewhere.statusCode, 404, 'the product is looked up in the restaurant named');
    assert.deepEqual((await stored(id)).history, 0);
  });

  await t.test('a dry run answers exactly the error the real write answers', async () => {
    const [id, other] = [await fresh(), await fresh()];
    const before = await Promise.all([id, other].map(stored));
    const version = before[0].row.updated_at.toISOString();
    const stale = '2025-01-01T00:00:00.000Z';
    const single: [string, number, unknown][] = [
      ['invalid_body', id, { price: 1.005, name: '  ' }],
      ['invalid_body', id, { price: '12.50' }],
      ['invalid_body', id, { price: 5, updated_at: version }],
      ['product_changes_required', id, {}],
      ['product_changes_required', id, { expected_updated_at: version, fiscal_info: {} }],
      ['product_not_found', world.products.otherRestaurant, { price: 5 }],
      ['product_not_found', world.products.removed, { price: 5 }],
      ['product_category_not_found', id, { product_category_id: categories.removed }],
      ['product_update_conflict', id, { price: 5, expected_updated_at: stale }],
    ];
    for (const [key, target, body] of single) {
      const dry = await put(`${target}${DRY}`, body);
      const real = await put(target, body);
      assert.equal(dry.json().key, key, dry.body);
      assert.equal(dry.statusCode, real.statusCode, key);
      assert.deepEqual(dry.json(), real.json(), key);
    }
    const batches: [string, unknown][] = [
      [
        'invalid_body',
        [
          { id, price: 5 },
          { id: other, price: -1 },
        ],
      ],
      [
        'product_changes_required',
        [
          { id, price: 5 },
          { id: other, expected_updated_at: version },
        ],
      ],
      [
        'duplicate_product_ids',
        [
          { id, price: 5 },
          { id, name: 'B' },
        ],
      ],
      [
        'product_not_found',
        [
          { id, price: 5 },
          { id: 2147483647, price: 5 },
        ],
      ],
      ['product_category_not_found', [{ id: other, product_category_id: categories.otherRestaurant }]],
      [
        'product_update_conflict',
        [
          { id, price: 5, expected_updated_at: stale },
          { id: other, price: 5, expected_updated_at: stale },
        ],
      ],
    ];
    for (const [key, body] of batches) {
      const dry = await dryBulk(body);
      const real = await bulk(body);
      assert.equal(dry.json().key, key, dry.body);
      assert.equal(dry.statusCode, real.statusCode, key);
      assert.deepEqual(dry.json(), real.json(), key);
    }
    assert.deepEqual(await Promise.all([id, other].map(stored)), before);
  });

  await t.test('the real write with the returned expected_updated_at applies what was reviewed', async () => {
    const id = await fresh();
    const change = { price: 44.4, fiscal_info: { ncm: '21069090' } };
    const [review] = (await put(`${id}${DRY}`, change)).json().products;
    const res = await put(id, { ...change, expected_updated_at: review.expected_updated_at });
    assert.equal(res.statusCode, 200, res.body);
    const written = res.json();
    assert.notEqual(written.updated_at, review.proposed.updated_at, 'the real write moves the version');
    assert.deepEqual({ ...written, updated_at: null }, { ...review.proposed, updated_at: null });
    const rows = await history(id);
    assert.equal(rows.length, 1);
    assert.deepEqual(rows[0].changes, review.changes);

    const [bulkReview] = (await dryBulk([{ id, sold_off: true }])).json().products;
    const applied = await bulk([{ id, sold_off: true, expected_updated_at: bulkReview.expected_updated_at }]);
    assert.equal(applied.statusCode, 200, applied.body);
    assert.equal(applied.json()[0].sold_off, true);
  });

  await t.test('a change made after the review makes the reviewed write a 409, nothing written', async () => {
    const id = await fresh();
    const [review] = (await put(`${id}${DRY}`, { price: 50 })).json().products;
    const moved = (await put(id, { name: 'Outra pessoa' })).json();
    const res = await put(id, { price: 50, expected_updated_at: review.expected_updated_at });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json().conflicts, [{ index: 0, id, current_updated_at: moved.updated_at }]);
    assert.equal((await get(`/v1/products/${id}`)).json().price, '40.00');
  });

  await t.test('a bulk dry run of 100 products answers 100 reviews and writes none', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 100; i++) ids.push(await fresh({ name: `P${i}` }));
    const res = await dryBulk(ids.map((id, i) => ({ id, price: i + 0.5 })));
    assert.equal(res.statusCode, 200);
    const { products } = res.json();
    assert.equal(products.length, 100);
    assert.deepEqual(products[99].changes, [{ field: 'price', from: '40.00', to: '99.50' }]);
    const touched = await ctx.db
      .selectFrom('products')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', 'in', ids)
      .where('price', '!=', '40.00')
      .executeTakeFirstOrThrow();
    assert.equal(Number(touched.n), 0);
  });

  await t.test('the OpenAPI document shows dry_run and both answers of the edit routes', async () => {
    const doc = (await app.inject('/openapi.json')).json();
    for (const path of ['/v1/products/{productId}', '/v1/products/bulk']) {
      const operation = doc.paths[path].put;
      const param = operation.parameters.find((p: { name: string }) => p.name === 'dry_run');
      assert.deepEqual([param.in, param.required, param.schema.type], ['query', false, 'boolean'], path);
      assert.ok(operation.parameters.some((p: { name: string }) => p.name === 'restaurant_id'));
      const answers = operation.responses['200'].content['application/json'].schema.anyOf;
      assert.equal(answers.length, 2, path);
      assert.deepEqual(answers[1], { $ref: '#/components/schemas/ChangeReview' }, path);
      const review = doc.components.schemas.ChangeReview;
      assert.deepEqual(review.required, ['dry_run', 'products']);
      assert.equal(review.properties.dry_run.const, true);
      assert.match(operation.description, /dry_run=true/);
    }
  });

  await t.test(
    'a dry run waits for a concurrent write on its products, then reviews the committed version',
    { skip: testDatabaseUrl ? false : 'needs two connections (PostgreSQL)' },
    async () => {
      const id = await fresh();
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query('begin');
        await client.query(
          `update products set price = 77, updated_at = updated_at + interval '1 second' where id = $1`,
          [id],
        );
        let answered = false;
        const pending = put(`${id}${DRY}`, { price: 1 }).then((res) => {
          answered = true;
          return res;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(answered, false, 'the dry run takes the row lock a write takes');
        await client.query('commit');
        const [review] = (await pending).json().products;
        assert.equal(review.current.price, '77.00');
        assert.deepEqual(review.changes, [{ field: 'price', from: '77.00', to: '1.00' }]);
      } finally {
        await client.end();
      }
    },
  );
});
