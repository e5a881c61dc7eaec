import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addProduct } from '../../support/catalog-world.ts';
import { catalogApp, PRODUCT_KEYS } from './helpers.ts';

test('PATCH /v1/products/{productId}/availability', async (t) => {
  const { patch, get, history, app, world, ctx } = await catalogApp(t);
  const fresh = () =>
    addProduct(ctx.db, world.restaurantA, world.categories.pizzas, {
      available: true,
      available_in_delivery: true,
      sold_off: true,
    });

  await t.test('changes the in-store channel only and returns the product', async () => {
    const id = await fresh();
    const res = await patch(id, { available: false });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Object.keys(res.json()).sort(), PRODUCT_KEYS);
    assert.deepEqual(
      [res.json().available, res.json().available_in_delivery, res.json().sold_off],
      [false, true, true],
    );
  });

  await t.test('changes the delivery channel only', async () => {
    const id = await fresh();
    const res = await patch(id, { available_in_delivery: false });
    assert.deepEqual([res.json().available, res.json().available_in_delivery], [true, false]);
  });

  await t.test('changes both channels at once', async () => {
    const id = await fresh();
    const res = await patch(id, { available: false, available_in_delivery: false });
    assert.deepEqual([res.json().available, res.json().available_in_delivery], [false, false]);
    assert.equal((await get(`/v1/products/${id}`)).json().available_in_delivery, false);
  });

  await t.test('at least one of the two flags is required', async () => {
    const id = await fresh();
    const empty = await patch(id, {});
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().key, 'product_changes_required');
    const none = await app.inject({
      method: 'PATCH',
      url: `/v1/products/${id}/availability`,
      headers: world.auth.write,
    });
    assert.equal(none.statusCode, 400);
  });

  await t.test('sold_off, other fields, non-booleans and null are rejected', async () => {
    const id = await fresh();
    for (const body of [
      { sold_off: false },
      { available: true, sold_off: false },
      { available: true, price: 1 },
      { available: 'false' },
      { available: 0 },
      { available_in_delivery: null },
      { available: true, expected_updated_at: '2026-01-10T12:00:00.000Z' },
    ]) {
      const res = await patch(id, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().key, 'invalid_body', JSON.stringify(body));
    }
    assert.equal((await get(`/v1/products/${id}`)).json().sold_off, true);
  });

  await t.test('a removed or another restaurant product is 404 product_not_found', async () => {
    for (const id of [world.products.removed, world.products.otherRestaurant]) {
      const res = await patch(id, { available: false });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().key, 'product_not_found');
    }
  });

  await t.test('needs products:write; a restaurant session is accepted', async () => {
    const id = await fresh();
    assert.equal((await patch(id, { available: false }, world.auth.read)).statusCode, 403);
    assert.equal((await patch(id, { available: false }, world.auth.session)).statusCode, 200);
    assert.equal((await patch(id, { available: true }, world.auth.writeOnly)).statusCode, 200);
  });

  await t.test('the change moves updated_at and is recorded; repeating it changes nothing', async () => {
    const id = await fresh();
    const before = (await get(`/v1/products/${id}`)).json();
    const changed = (await patch(id, { available: false })).json();
    assert.ok(Date.parse(changed.updated_at) > Date.parse(before.updated_at));
    const again = await patch(id, { available: false });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().updated_at, changed.updated_at);
    const rows = await history(id);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].operation, 'availability');
    assert.deepEqual(rows[0].changes, [{ field: 'available', from: true, to: false }]);
  });
});
