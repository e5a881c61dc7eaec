import assert from 'node:assert/strict';
import { test } from 'node:test';
import { issueAccessToken } from '../../../src/modules/auth/access-tokens.ts';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { addProduct } from '../../support/catalog-world.ts';
import { resolve } from '../../support/openapi.ts';
import { catalogApp } from './helpers.ts';

type Item = {
  at: string;
  credential: Record<string, unknown>;
  operation: string;
  changes: { field: string; from: unknown; to: unknown }[];
};

test('GET /v1/products/{productId}/history', async (t) => {
  const { post, put, bulk, patch, get, world, ctx } = await catalogApp(t);
  const { categories, restaurantA, restaurantB, auth } = world;
  const fresh = () =>
    addProduct(ctx.db, restaurantA, categories.pizzas, { name: 'Napolitana', price: '30.00' });
  const historyOf = (id: number, query = '', authorization: { authorization: string } = auth.read) =>
    get(`/v1/products/${id}/history${query}`, authorization);
  const itemsOf = async (id: number) => (await historyOf(id, '?limit=100')).json().items as Item[];
  const client = await storeOAuthClient(ctx.db, {
    clientId: 'erp-history',
    clientSecret: 'erp-secret',
    name: 'ERP',
    scopes: ['products:write'],
    grantTypes: ['client_credentials'],
    restaurantIds: [restaurantA],
  });
  const oauthToken = await issueAccessToken(
    ctx.db,
    { oauthClientId: client.id, restaurantIds: [restaurantA], scopes: ['products:write'] },
    900,
  );
  const oauth = { authorization: `Bearer ${oauthToken}` };

  await t.test('lists create, edit, bulk and availability newest first with their changes', async () => {
    const created = await post({ name: 'Fugazza', product_category_id: categories.pizzas, price: 31.5 });
    const id = created.json().id;
    await put(id, { price: 32, fiscal_info: { ncm: '19059090' } });
    await bulk([{ id, sold_off: true }]);
    await patch(id, { available_in_delivery: false });
    const res = await historyOf(id);
    assert.equal(res.statusCode, 200, res.body);
    const { items, next_cursor } = res.json();
    assert.equal(next_cursor, null);
    assert.deepEqual(
      items.map((i: Item) => i.operation),
      ['availability', 'bulk', 'edit', 'create'],
    );
    assert.deepEqual(items[0].changes, [{ field: 'available_in_delivery', from: true, to: false }]);
    assert.deepEqual(items[1].changes, [{ field: 'sold_off', from: false, to: true }]);
    assert.deepEqual(items[2].changes, [
      { field: 'price', from: '31.50', to: '32.00' },
      { field: 'fiscal_info.ncm', from: null, to: '19059090' },
    ]);
    assert.ok(
      items[3].changes.some(
        (c: unknown) => JSON.stringify(c) === '{"field":"price","from":null,"to":"31.50"}',
      ),
    );
    for (const item of items) {
      assert.deepEqual(Object.keys(item).sort(), ['at', 'changes', 'credential', 'operation']);
      assert.equal(new Date(item.at).toISOString(), item.at);
    }
    const times = items.map((i: Item) => Date.parse(i.at));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  await t.test(
    'names the credential: API key id and name, OAuth client, or a session, never a secret',
    async () => {
      const id = await fresh();
      await put(id, { price: 1 }, auth.write);
      await put(id, { price: 2 }, oauth);
      await put(id, { price: 3 }, auth.session);
      const res = await historyOf(id);
      const [session, application, key] = res.json().items.map((i: Item) => i.credential);
      assert.deepEqual(session, { kind: 'restaurant_session' });
      assert.deepEqual(application, { kind: 'oauth_client', client_id: 'erp-history' });
      assert.deepEqual(key, { kind: 'api_key', api_key_id: auth.write.apiKeyId, api_key_name: 'writer' });
      for (const secret of [auth.session, oauth, auth.write].map((a) => a.authorization.slice(7))) {
        assert.ok(!res.body.includes(secret.slice(0, 24)), 'no token in the history');
      }
      assert.ok(!res.body.includes('erp-secret'));
    },
  );

  await t.test(
    'pages by cursor with neither duplicates nor gaps, even while new changes arrive',
    async () => {
      const id = await fresh();
      for (let price = 1; price <= 7; price++) await put(id, { price });
      const all = await itemsOf(id);
      assert.equal(all.length, 7);
      const seen: Item[] = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const query: string = `?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = (await historyOf(id, query)).json();
        sizes.push(page.items.length);
        seen.push(...page.items);
        cursor = page.next_cursor;
        // A change between two pages shows on a new first page, never inside the walk.
        if (sizes.length === 1) await put(id, { price: 8 });
      } while (cursor);
      assert.deepEqual(sizes, [3, 3, 1]);
      assert.deepEqual(seen, all);
      assert.equal((await itemsOf(id))[0].changes[0].to, '8.00');
    },
  );

  await t.test('answers 50 by default and up to 100 with limit', async () => {
    const id = await fresh();
    await ctx.db
      .insertInto('product_changes')
      .values(
        Array.from({ length: 120 }, (_, i) => ({
          restaurant_id: restaurantA,
          product_id: id,
          operation: 'edit' as const,
          actor: JSON.stringify({ kind: 'restaurant_session', session_id: 's' }),
          changes: JSON.stringify([{ field: 'name', from: `${i}`, to: `${i + 1}` }]),
        })),
      )
      .execute();
    const first = (await historyOf(id)).json();
    assert.equal(first.items.length, 50);
    assert.equal(first.items[0].changes[0].to, '120');
    const rest = (await historyOf(id, `?limit=100&cursor=${first.next_cursor}`)).json();
    assert.equal(rest.items.length, 70);
    assert.equal(rest.items[0].changes[0].to, '70');
    assert.equal(rest.next_cursor, null);
    assert.equal((await historyOf(id, '?limit=100')).json().items.length, 100);
  });

  await t.test('a bad limit or cursor, or an unknown parameter, is 400 invalid_query', async () => {
    const id = await fresh();
    const other = await fresh();
    for (let price = 1; price <= 3; price++) await put(other, { price });
    const foreign = (await historyOf(other, '?limit=1')).json().next_cursor;
    const cases: [string, string][] = [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?cursor=', 'cursor'],
      ['?cursor=garbage', 'cursor'],
      ['?cursor=%2F%2F%2F', 'cursor'],
      [`?cursor=${Buffer.from(`${id}.0`).toString('base64url')}`, 'cursor'],
      [`?cursor=${foreign}`, 'cursor'],
      ['?offset=10', 'offset'],
    ];
    for (const [query, field] of cases) {
      const res = await historyOf(id, query);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().key, 'invalid_query', query);
      assert.equal(res.json().errors[0].field, field, query);
    }
  });

  await t.test(
    'another restaurant, a removed product or an unknown id is 404 product_not_found',
    async () => {
      const id = await fresh();
      await put(id, { price: 9 });
      const missing = [
        await historyOf(world.products.otherRestaurant),
        await historyOf(id, '', auth.writeB),
        await historyOf(id, `?restaurant_id=${restaurantB}`, auth.partner),
        await historyOf(2147483647),
      ];
      await ctx.db.updateTable('products').set({ removed_at: new Date() }).where('id', '=', id).execute();
      missing.push(await historyOf(id));
      for (const res of missing) {
        assert.equal(res.statusCode, 404);
        assert.equal(res.json().key, 'product_not_found');
      }
      const kept = await historyOf(world.products.inRemovedCategory);
      assert.equal(kept.statusCode, 200, 'a product of a removed category is not removed');
    },
  );

  await t.test('shows only the product of the path, for the restaurant of the credential', async () => {
    const [a, b] = [await fresh(), await fresh()];
    await bulk([
      { id: a, price: 11 },
      { id: b, price: 12 },
    ]);
    await put(world.products.otherRestaurant, { price: 13 }, auth.writeB);
    assert.deepEqual(
      (await itemsOf(a)).map((i) => i.changes),
      [[{ field: 'price', from: '30.00', to: '11.00' }]],
    );
    assert.deepEqual(
      (await itemsOf(b)).map((i) => i.changes),
      [[{ field: 'price', from: '30.00', to: '12.00' }]],
    );
    const theirs = await historyOf(
      world.products.otherRestaurant,
      `?restaurant_id=${restaurantB}`,
      auth.partner,
    );
    assert.equal(theirs.json().items.length, 1);
    assert.equal(theirs.json().items[0].credential.api_key_name, 'writer B');
  });

  await t.test('needs products:read; a session reads its own restaurant', async () => {
    const id = await fresh();
    for (const denied of [auth.writeOnly, auth.menuOnly]) {
      const res = await historyOf(id, '', denied);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().key, 'insufficient_scope');
    }
    assert.equal((await historyOf(id, '', auth.session)).statusCode, 200);
    assert.equal((await historyOf(world.products.otherRestaurant, '', auth.session)).statusCode, 404);
  });

  await t.test('the OpenAPI document describes the route, its scope, paging and 404', async () => {
    const doc = (await get('/openapi.json')).json();
    const operation = doc.paths['/v1/products/{productId}/history'].get;
    assert.ok(operation.summary);
    assert.deepEqual(operation.security, [{ oauth2: ['products:read'] }, { bearer: [] }]);
    const names = operation.parameters.map((p: { name: string }) => p.name).sort();
    assert.deepEqual(names, ['cursor', 'if-none-match', 'limit', 'productId', 'restaurant_id']);
    const notFound = resolve(doc, operation.responses['404'].content['application/json'].schema);
    assert.deepEqual(notFound.properties.key.enum, ['product_not_found']);
    const page = resolve(doc, operation.responses['200'].content['application/json'].schema);
    assert.deepEqual(Object.keys(page.properties).sort(), ['items', 'next_cursor']);
  });

  await t.test('dry runs and writes equal to the stored values are not in the history', async () => {
    const id = await fresh();
    await put(`${id}?dry_run=true`, { price: 99 });
    await put(id, { price: 30, name: 'Napolitana' });
    await bulk([{ id, price: 30 }]);
    assert.deepEqual(await itemsOf(id), []);
  });
});
