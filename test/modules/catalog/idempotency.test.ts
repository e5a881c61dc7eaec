// Idempotency-Key on every product write: one write per key and credential, its answer replayed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { issueAccessToken } from '../../../src/modules/auth/access-tokens.ts';
import { buildTestApp } from '../../support/app.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { bearerFor } from '../../support/tokens.ts';
import { catalogApp } from './helpers.ts';

const onPostgres = { skip: testDatabaseUrl ? false : 'needs PostgreSQL (two connections)' };

test('Idempotency-Key on product writes', async (t) => {
  const { app, ctx, world, database } = await catalogApp(t);
  const { categories, products, auth } = world;
  const send = (
    method: 'POST' | 'PUT' | 'PATCH',
    url: string,
    payload: unknown,
    key?: string,
    who: { authorization: string } = auth.write,
  ) =>
    app.inject({
      method,
      url,
      payload: payload as object,
      headers: { ...who, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    });
  const count = async (name: string) =>
    Number(
      (
        await ctx.db
          .selectFrom('products')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const create = (name: string) => ({ name, product_category_id: categories.pizzas, price: 30 });

  await t.test(
    'a create sent twice with one key makes one product and replays the first answer',
    async () => {
      const first = await send('POST', '/v1/products', create('Portuguesa'), 'create-1');
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      const again = await send('POST', '/v1/products', create('Portuguesa'), 'create-1');
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, first.body, 'the same bytes');
      assert.match(String(again.headers['content-type']), /^application\/json/);
      assert.equal(await count('Portuguesa'), 1);
    },
  );

  await t.test(
    'the same key with another body is 422 idempotency_key_reused and writes nothing',
    async () => {
      const other = await send('POST', '/v1/products', create('Napolitana'), 'create-1');
      assert.equal(other.statusCode, 422);
      assert.equal(other.json().key, 'idempotency_key_reused');
      assert.equal(await count('Napolitana'), 0);
    },
  );

  await t.test('another credential has keys of its own', async () => {
    const res = await send('POST', '/v1/products', create('Portuguesa'), 'create-1', auth.writeOnly);
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['idempotent-replayed'], undefined);
    assert.equal(await count('Portuguesa'), 2);
  });

  await t.test("a key whose one restaurant changed never replays the other restaurant's answer", async () => {
    const scopes = ['products:read', 'products:write'];
    const { apiKeyId, authorization } = await bearerFor(ctx.db, [world.restaurantA], scopes, 'moved key');
    const first = await send('POST', '/v1/products', create('Quatro Queijos'), 'moving', { authorization });
    assert.equal(first.statusCode, 201, first.body);
    await ctx.db
      .updateTable('api_key_restaurants')
      .set({ restaurant_id: world.restaurantB })
      .where('api_key_id', '=', apiKeyId)
      .execute();
    const token = await issueAccessToken(
      ctx.db,
      { apiKeyId, restaurantIds: [world.restaurantB], scopes },
      900,
    );
    const moved = { authorization: `Bearer ${token}` };
    const again = await send('POST', '/v1/products', create('Quatro Queijos'), 'moving', moved);
    assert.equal(again.statusCode, 422, again.body);
    assert.equal(again.json().key, 'idempotency_key_reused');
    assert.equal(again.headers['idempotent-replayed'], undefined);
  });

  await t.test('edits, bulk edits and availability changes replay their answers too', async () => {
    const id = products.calabresa;
    const edit = await send('PUT', `/v1/products/${id}`, { price: 51.5 }, 'edit-1');
    const replay = await send('PUT', `/v1/products/${id}`, { price: 51.5 }, 'edit-1');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, edit.body);
    const bulk = await send('PUT', '/v1/products/bulk', [{ id, price: 52 }], 'bulk-1');
    const bulkReplay = await send('PUT', '/v1/products/bulk', [{ id, price: 52 }], 'bulk-1');
    assert.equal(bulkReplay.statusCode, 200);
    assert.equal(bulkReplay.body, bulk.body);
    const patch = await send('PATCH', `/v1/products/${id}/availability`, { available: false }, 'patch-1');
    const patchReplay = await send(
      'PATCH',
      `/v1/products/${id}/availability`,
      { available: false },
      'patch-1',
    );
    assert.equal(patchReplay.body, patch.body);
    const history = await ctx.db
      .selectFrom('product_changes')
      .select('operation')
      .where('product_id', '=', id)
      .execute();
    assert.equal(history.length, 3, 'each write made once');
  });

  await t.test('a refused write stores nothing: the same key may be sent again', async () => {
    const missing = { name: 'Fantasma', product_category_id: 999_999, price: 10 };
    const first = await send('POST', '/v1/products', missing, 'refused-1');
    const again = await send('POST', '/v1/products', missing, 'refused-1');
    assert.equal(first.statusCode, 404);
    assert.equal(again.statusCode, 404);
    assert.equal(again.headers['idempotent-replayed'], undefined);
  });

  await t.test('an expired key runs the request again', async () => {
    await send('POST', '/v1/products', create('Expirada'), 'expiring');
    await ctx.db
      .updateTable('idempotency_keys' as never)
      .set({ expires_at: new Date(Date.now() - 1000) } as never)
      .where('key' as never, '=', 'expiring' as never)
      .execute();
    const again = await send('POST', '/v1/products', create('Expirada'), 'expiring');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], undefined);
    assert.equal(await count('Expirada'), 2);
  });

  await t.test(
    'a key that is not 1 to 255 visible ASCII characters is 400 invalid_idempotency_key',
    async () => {
      for (const key of ['', 'x'.repeat(256), 'with space', 'tab\there', 'acentuação']) {
        const res = await app.inject({
          method: 'POST',
          url: '/v1/products',
          payload: create('Inválida'),
          headers: {
            ...auth.write,
            'idempotency-key': encodeURI(key) === key ? key : Buffer.from(key).toString('latin1'),
          },
        });
        assert.equal(res.statusCode, 400, JSON.stringify(key));
        assert.equal(res.json().key, 'invalid_idempotency_key');
      }
      assert.equal(await count('Inválida'), 0);
    },
  );

  await t.test('a dry run ignores the key and writes nothing', async () => {
    const id = products.margherita;
    const review = await send('PUT', `/v1/products/${id}?dry_run=true`, { price: 1 }, 'dry-1');
    assert.equal(review.statusCode, 200);
    assert.equal(review.json().dry_run, true);
  });

  await t.test(
    'while a request with the key runs, another is 409 idempotency_key_in_use with Retry-After',
    onPostgres,
    async () => {
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      const credential = `api_key:${auth.write.apiKeyId}`;
      // A transaction's lock, so that it holds through PgBouncer in transaction mode too.
      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [`${credential}\nbusy-1`]);
      try {
        const res = await send('POST', '/v1/products', create('Ocupada'), 'busy-1');
        assert.equal(res.statusCode, 409);
        assert.equal(res.json().key, 'idempotency_key_in_use');
        assert.equal(res.headers['retry-after'], '1');
        assert.equal(await count('Ocupada'), 0);
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
      assert.equal((await send('POST', '/v1/products', create('Ocupada'), 'busy-1')).statusCode, 201);
    },
  );

  await t.test(
    'on the edit routes, whose 409 is also the update conflict, a running key is 409 idempotency_key_in_use too',
    onPostgres,
    async () => {
      const id = products.margherita;
      const before = (await app.inject({ url: `/v1/products/${id}`, headers: auth.read })).body;
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      await holder.query('begin');
      await holder.query('select pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `api_key:${auth.write.apiKeyId}\nbusy-edit`,
      ]);
      try {
        for (const [method, url, payload] of [
          ['PUT', `/v1/products/${id}`, { price: 61 }],
          ['PUT', '/v1/products/bulk', [{ id, price: 61 }]],
          ['PATCH', `/v1/products/${id}/availability`, { available: false }],
        ] as const) {
          const res = await send(method, url, payload, 'busy-edit');
          assert.equal(res.statusCode, 409, `${method} ${url}: ${res.body}`);
          assert.deepEqual(res.json(), {
            statusCode: 409,
            message:
              'A request with this Idempotency-Key is still running; retry after the Retry-After seconds.',
            key: 'idempotency_key_in_use',
          });
          assert.equal(res.headers['retry-after'], '1');
        }
      } finally {
        await holder.query('rollback');
        await holder.end();
      }
      assert.equal((await app.inject({ url: `/v1/products/${id}`, headers: auth.read })).body, before);
    },
  );

  await t.test('two instances on one database agree on a key', onPostgres, async (t) => {
    const other = await buildTestApp(t, { database });
    const payload = create('Duas Instâncias');
    const first = await send('POST', '/v1/products', payload, 'two-1');
    const replay = await other.app.inject({
      method: 'POST',
      url: '/v1/products',
      payload,
      headers: { ...auth.write, 'idempotency-key': 'two-1' },
    });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
    assert.equal(await count('Duas Instâncias'), 1);
  });
});
