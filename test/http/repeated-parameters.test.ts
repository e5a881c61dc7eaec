// A query parameter given more than once reaches the schema as an array: whatever its declared
// type (text, integer, boolean), the answer says it was given more than once (validation.ts
// refusingRepeated), not what its text must be, and the other parameters are checked as usual.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsWorld } from '../support/events-world.ts';

const REPEATED_PARAMETER = 'is given more than once: give it once (a list goes in one, comma-separated)';

test('a repeated query parameter of any type is 400 invalid_query saying to give it once', async (t) => {
  const world = await eventsWorld(t);
  const authorization = await world.bearer();
  const get = (url: string) => world.app.inject({ url, headers: { authorization } });
  const repeated = (field: string) => ({ field, message: REPEATED_PARAMETER });

  await t.test(
    'an integer (GET /v1/events limit), a text beside it too, the others still checked',
    async () => {
      const res = await get('/v1/events?limit=5&limit=6');
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().key, 'invalid_query');
      assert.deepEqual(res.json().errors, [repeated('limit')]);
      assert.equal(res.json().message, `Invalid query: limit ${REPEATED_PARAMETER}.`);
      const both = await get('/v1/events?limit=5&types=product.updated&limit=5&types=menu.updated');
      assert.equal(both.statusCode, 400, both.body);
      assert.deepEqual(both.json().errors, [repeated('limit'), repeated('types')]);
      const withWrong = await get('/v1/events?limit=5&limit=6&after=');
      assert.equal(withWrong.statusCode, 400, withWrong.body);
      assert.deepEqual(
        withWrong.json().errors.map((e: { field: string }) => e.field),
        ['limit', 'after'],
      );
    },
  );

  await t.test('an integer id (GET /v1/products/{id} restaurant_id), even given twice alike', async () => {
    const restaurant = world.restaurant;
    const res = await get(
      `/v1/products/${world.products[0]}?restaurant_id=${restaurant}&restaurant_id=${restaurant}`,
    );
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().key, 'invalid_query');
    assert.deepEqual(res.json().errors, [repeated('restaurant_id')]);
  });

  await t.test('a boolean (PUT /v1/products/{id} dry_run)', async () => {
    const put = (query: string) =>
      world.app.inject({
        method: 'PUT',
        url: `/v1/products/${world.products[0]}${query}`,
        headers: { authorization },
        payload: { name: 'Repetida' },
      });
    const res = await put('?dry_run=true&dry_run=true');
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().key, 'invalid_query');
    assert.deepEqual(res.json().errors, [repeated('dry_run')]);
    const once = await put('?dry_run=true');
    assert.equal(once.statusCode, 200, once.body);
  });
});
