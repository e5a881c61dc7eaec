// A bulk edit answers bytes rendered without the route's serialiser (productsJson in
// src/modules/catalog/product-map.ts): they must be the ones the Product response schema's
// serialiser writes for the same products read back from the database (oracle.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import { addProduct } from '../../support/catalog-world.ts';
import { catalogApp } from './helpers.ts';
import { oracleRoutes, schemaValidators } from './oracle.ts';

const TRICKY_TEXT = 'Pão "grande" \\ nº 1\t🧀 linha\nlinha\r\u0001 \u2028 \u007f fim';

test('a bulk edit answers the bytes of the Product schema serialiser', async (t) => {
  const { app, bulk, put, world, ctx } = await catalogApp(t, { routes: oracleRoutes });
  const { restaurantA, categories } = world;
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) {
    ids.push(
      await addProduct(ctx.db, restaurantA, categories.pizzas, {
        name: `Produto ${i}`,
        description: i % 2 ? null : 'antes',
        ...Object.fromEntries(FISCAL_COLUMNS.map((c, k) => [c, (k + i) % 3 ? `0${k}` : null])),
      }),
    );
  }
  const expected = async (list: number[]) => {
    const bodies = [];
    for (const id of list) {
      const res = await app.inject({ method: 'GET', url: `/oracle/${restaurantA}/products/${id}` });
      assert.equal(res.statusCode, 200);
      bodies.push(res.body);
    }
    return `[${bodies.join(',')}]`;
  };

  await t.test('escapes, non-ASCII text, nulls, every kind of field, in the order received', async () => {
    const res = await bulk([
      { id: ids[3], name: TRICKY_TEXT, description: TRICKY_TEXT },
      { id: ids[0], description: null, price: 1234567.89, price_promotion: 0, delivery_price: null },
      { id: ids[5], available: false, sold_off: true, fiscal_info: { ncm: 'a "b" \\ c', cfop: null } },
      { id: ids[1], product_category_id: categories.drinks, charge_service_tax: false },
    ]);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.headers['content-length'], String(res.rawPayload.length));
    assert.equal(res.body, await expected([ids[3], ids[0], ids[5], ids[1]]));
    const validate = schemaValidators();
    for (const product of res.json())
      assert.ok(validate.product(product), JSON.stringify(validate.product.errors));
  });

  await t.test('a batch whose edits change nothing answers the stored products, same bytes', async () => {
    const current = JSON.parse(await expected([ids[2], ids[4]]));
    const res = await bulk(
      current.map((p: { id: number; price: string }) => ({ id: p.id, price: Number(p.price) })),
    );
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, await expected([ids[2], ids[4]]));
  });

  await t.test('the single edit (its own branch of the union) is the serialiser output too', async () => {
    const res = await put(ids[4], { name: TRICKY_TEXT, price: 7 });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(res.body, (await expected([ids[4]])).slice(1, -1));
  });

  await t.test('dry runs answer JSON through the review branch', async () => {
    for (const [url, payload] of [
      ['/v1/products/bulk?dry_run=true', [{ id: ids[2], price: 99 }]],
      [`/v1/products/${ids[2]}?dry_run=true`, { price: 99 }],
    ] as const) {
      const res = await app.inject({ method: 'PUT', url, payload, headers: world.auth.write });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8', url);
      assert.equal(res.json().dry_run, true, url);
    }
  });
});
