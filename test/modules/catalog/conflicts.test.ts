import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addProduct } from '../../support/catalog-world.ts';
import { resolve } from '../../support/openapi.ts';
import { catalogApp } from './helpers.ts';

const STALE = '2025-06-01T10:00:00.000Z';

test('409 product_update_conflict lists every stale product', async (t) => {
  const { app, put, bulk, get, history, world, ctx } = await catalogApp(t);
  const { categories, restaurantA } = world;
  const many = async (count: number) => {
    const ids: number[] = [];
    for (let i = 0; i < count; i++) ids.push(await addProduct(ctx.db, restaurantA, categories.pizzas));
    return ids;
  };
  const versionOf = async (id: number) => (await get(`/v1/products/${id}`)).json().updated_at as string;

  await t.test('a single edit names its product at index 0 with the current version', async () => {
    const [id] = await many(1);
    const res = await put(id, { name: 'X', expected_updated_at: STALE });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), {
      statusCode: 409,
      key: 'product_update_conflict',
      message: res.json().message,
      conflicts: [{ index: 0, id, current_updated_at: await versionOf(id) }],
    });
  });

  await t.test('a bulk lists every stale object, by its index in the request, in request order', async () => {
    const ids = await many(4);
    const versions = await Promise.all(ids.map(versionOf));
    // Request order is the reverse of id (and lock) order: indexes must follow the request.
    const body = [ids[3], ids[2], ids[1], ids[0]].map((id) => ({ id, price: 7, expected_updated_at: STALE }));
    body[1].expected_updated_at = versions[2];
    const res = await bulk(body);
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json().conflicts, [
      { index: 0, id: ids[3], current_updated_at: versions[3] },
      { index: 2, id: ids[1], current_updated_at: versions[1] },
      { index: 3, id: ids[0], current_updated_at: versions[0] },
    ]);
    for (const id of ids) assert.equal((await history(id)).length, 0);
    assert.deepEqual(await Promise.all(ids.map(versionOf)), versions);
  });

  await t.test('objects without expected_updated_at are never conflicts', async () => {
    const [a, b] = await many(2);
    const res = await bulk([
      { id: a, price: 1 },
      { id: b, price: 1, expected_updated_at: STALE },
    ]);
    assert.deepEqual(
      res.json().conflicts.map((c: { id: number }) => c.id),
      [b],
    );
  });

  await t.test(
    're-reading exactly the listed products and resending with their versions succeeds',
    async () => {
      const ids = await many(3);
      const read = await Promise.all(ids.map(versionOf));
      await put(ids[0], { name: 'Someone else' });
      await put(ids[2], { name: 'Someone else' });
      const edit = (versions: string[]) =>
        ids.map((id, i) => ({ id, price: 20, expected_updated_at: versions[i] }));
      const refused = await bulk(edit(read));
      const conflicts: { index: number; id: number; current_updated_at: string }[] = refused.json().conflicts;
      assert.deepEqual(
        conflicts.map((c) => c.index),
        [0, 2],
      );
      for (const c of conflicts) assert.equal(await versionOf(c.id), c.current_updated_at);
      const fixed = [...read];
      for (const c of conflicts) fixed[c.index] = c.current_updated_at;
      const accepted = await bulk(edit(fixed));
      assert.equal(accepted.statusCode, 200, accepted.body);
    },
  );

  await t.test('a stale version is a conflict even when the write would change nothing', async () => {
    const [id] = await many(1);
    const res = await put(id, { price: 10, expected_updated_at: STALE });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().conflicts.length, 1);
  });

  await t.test('missing products and categories are answered before conflicts', async () => {
    const [id, other] = await many(2);
    const stale = { id, price: 3, expected_updated_at: STALE };
    const missing = await bulk([stale, { id: world.products.otherRestaurant, price: 3 }]);
    assert.equal(missing.json().key, 'product_not_found');
    const category = await bulk([stale, { id: other, product_category_id: categories.removed }]);
    assert.equal(category.json().key, 'product_category_not_found');
    const both = await put(id, { product_category_id: categories.removed, expected_updated_at: STALE });
    assert.equal(both.json().key, 'product_category_not_found');
  });

  await t.test('the OpenAPI document describes conflicts on both edit routes', async () => {
    const doc = (await app.inject('/openapi.json')).json();
    for (const path of ['/v1/products/{productId}', '/v1/products/bulk']) {
      const response = doc.paths[path].put.responses['409'];
      const schema = resolve(doc, response.content['application/json'].schema);
      assert.deepEqual(
        schema.properties.key.enum.toSorted(),
        ['idempotency_key_in_use', 'product_update_conflict'],
        path,
      );
      assert.ok(!schema.required.includes('conflicts'), 'idempotency_key_in_use has no conflicts');
      assert.deepEqual(Object.keys(schema.properties.conflicts.items.properties).sort(), [
        'current_updated_at',
        'id',
        'index',
      ]);
      const { examples } = response.content['application/json'];
      assert.ok(examples.product_update_conflict.value.conflicts);
      assert.equal(examples.idempotency_key_in_use.value.conflicts, undefined);
    }
  });
});
