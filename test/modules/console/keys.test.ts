import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storeApiKey } from '../../../src/modules/auth/api-keys.ts';
import { buildTestApp } from '../../support/app.ts';
import { postToken } from '../auth/support.ts';
import { addStaff, seedRestaurants, Visitor } from './support.ts';

test('API keys in the console', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella, kai, other] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sushi Kai', 'Outro']);
  await addStaff(ctx.db, 'ana@example.com', [bella, kai]);
  const ana = new Visitor(app);
  await ana.signIn('ana@example.com');
  await ana.submit('/console/restaurant', '/console/restaurant', { restaurant_id: String(bella) });
  const create = (form: Record<string, string | string[]>) =>
    ana.submit('/console/keys/new', '/console/keys', form);
  const keyOf = (body: string) => /id="api-key"[^>]*value="([^"]+)"/.exec(body)?.[1];
  const menu = (token: string) =>
    app.inject({ url: '/v1/menu', headers: { authorization: `Bearer ${token}` } });

  let created = '';
  await t.test('a new key is shown once, with the scopes, restaurants and environment chosen', async () => {
    const res = await create({
      name: 'POS do balcão',
      scopes: ['menu:read', 'products:read'],
      restaurant_ids: [String(bella), String(kai)],
      environment: 'test',
    });
    assert.equal(res.statusCode, 201);
    created = keyOf(res.body)!;
    assert.match(created, /^ck_test_[\w-]{43}$/);
    const row = await ctx.db
      .selectFrom('api_keys')
      .select(['name', 'scopes', 'environment', 'key_hash'])
      .where('prefix', '=', created.slice(0, 12))
      .executeTakeFirstOrThrow();
    assert.deepEqual(row.scopes, ['menu:read', 'products:read']);
    assert.equal(row.environment, 'test');
    assert.notEqual(row.key_hash, created, 'only its hash is stored');
    const token = await postToken(app, { grant_type: 'api_key', api_key: created });
    assert.equal(token.statusCode, 200);
    assert.equal(token.json().scope, 'products:read menu:read');
    assert.equal(
      (
        await app.inject({
          url: `/v1/menu?restaurant_id=${kai}`,
          headers: { authorization: `Bearer ${token.json().access_token}` },
        })
      ).statusCode,
      200,
    );
  });

  await t.test(
    'the list shows the prefix only, with scopes, restaurants, environment, dates and status',
    async () => {
      const res = await ana.get('/console/keys');
      assert.equal(res.statusCode, 200);
      assert.ok(!res.body.includes(created), 'the key itself never appears again');
      assert.ok(res.body.includes(`${created.slice(0, 12)}…`));
      for (const text of ['POS do balcão', 'menu:read', 'products:read', 'Sushi Kai', '>test<', '>active<']) {
        assert.ok(res.body.includes(text), text);
      }
      assert.match(
        res.body,
        /data-label="Last used"><div><time datetime="20/,
        'the exchange above is its last use',
      );
    },
  );

  await t.test(
    'a form with no scope, an unknown scope, a foreign restaurant or no name creates nothing',
    async () => {
      const before = (await ctx.db.selectFrom('api_keys').select('id').execute()).length;
      const cases: Record<string, string | string[]>[] = [
        { name: 'x', restaurant_ids: String(bella), environment: 'live' },
        { name: 'x', scopes: 'admin:all', restaurant_ids: String(bella), environment: 'live' },
        { name: 'x', scopes: 'menu:read', restaurant_ids: String(other), environment: 'live' },
        { name: '  ', scopes: 'menu:read', restaurant_ids: String(bella), environment: 'live' },
        { name: 'x', scopes: 'menu:read', restaurant_ids: String(bella), environment: 'prod' },
      ];
      for (const form of cases) {
        const res = await create(form);
        assert.equal(res.statusCode, 400, JSON.stringify(form));
        assert.match(res.body, /The key was not created/);
        assert.match(res.body, /aria-invalid="true"/);
        assert.equal(keyOf(res.body), undefined);
      }
      assert.equal((await ctx.db.selectFrom('api_keys').select('id').execute()).length, before);
    },
  );

  await t.test('a refused name is described by its hint and its problem, in one attribute', async () => {
    const res = await create({
      name: ' ',
      scopes: 'menu:read',
      restaurant_ids: String(bella),
      environment: 'live',
    });
    const input = /<input id="name"[^>]*>/.exec(res.body)?.[0] ?? '';
    // A second aria-describedby on the same tag is dropped by the browser, with what it names.
    assert.deepEqual(input.match(/aria-describedby="[^"]*"/g), ['aria-describedby="name-hint name-error"']);
    assert.match(res.body, /<p class="error" id="name-error">Give the key a name.<\/p>/);
  });

  await t.test('a name holding a NUL character is a problem of the form, not a 500', async () => {
    const res = await create({
      name: 'POS\u0000',
      scopes: 'menu:read',
      restaurant_ids: String(bella),
      environment: 'live',
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /The key was not created/);
    assert.match(res.body, /id="name-error"/);
  });

  await t.test('a restaurant ticked twice makes one key for it, not a 500', async () => {
    const res = await create({
      name: 'twice',
      scopes: 'menu:read',
      restaurant_ids: [String(bella), String(bella)],
      environment: 'live',
    });
    assert.equal(res.statusCode, 201);
    const { id } = await ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('name', '=', 'twice')
      .executeTakeFirstOrThrow();
    const links = await ctx.db
      .selectFrom('api_key_restaurants')
      .select('restaurant_id')
      .where('api_key_id', '=', id)
      .execute();
    assert.deepEqual(links, [{ restaurant_id: bella }]);
  });

  await t.test('revoking asks first, then stops the key and its tokens at once', async () => {
    const res = await create({
      name: 'to revoke',
      scopes: 'menu:read',
      restaurant_ids: String(bella),
      environment: 'live',
    });
    const key = keyOf(res.body)!;
    const { access_token } = (await postToken(app, { grant_type: 'api_key', api_key: key })).json();
    assert.equal((await menu(access_token)).statusCode, 200);
    const { id } = await ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('name', '=', 'to revoke')
      .executeTakeFirstOrThrow();
    const confirm = await ana.get(`/console/keys/${id}/revoke`);
    assert.match(confirm.body, /Revoke “to revoke”\?/);
    assert.equal((await menu(access_token)).statusCode, 200, 'the confirmation page changes nothing');
    const done = await ana.submit(`/console/keys/${id}/revoke`, `/console/keys/${id}/revoke`, {});
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, `/console/keys?revoked=${id}`);
    assert.equal((await menu(access_token)).statusCode, 401);
    assert.equal(
      (await postToken(app, { grant_type: 'api_key', api_key: key })).json().error,
      'invalid_client',
    );
    const list = (await ana.get(String(done.headers.location))).body;
    assert.match(list, />revoked</);
    // The message names the key as the list does: its id is shown nowhere.
    assert.match(list, /role="status">“to revoke” revoked: its access tokens no longer work\.</);
  });

  await t.test("another restaurant's key is neither listed nor revocable", async () => {
    const foreign = await storeApiKey(ctx.db, {
      name: 'Foreign ERP',
      restaurantIds: [other],
      scopes: ['menu:read'],
    });
    assert.ok(!(await ana.get('/console/keys')).body.includes('Foreign ERP'));
    assert.equal((await ana.get(`/console/keys/${foreign.id}/revoke`)).statusCode, 404);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await ana.get('/console/keys')).body)![1];
    assert.equal((await ana.post(`/console/keys/${foreign.id}/revoke`, { csrf })).statusCode, 404);
    const row = await ctx.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', foreign.id)
      .executeTakeFirstOrThrow();
    assert.equal(row.revoked_at, null);
    assert.equal((await ana.get('/console/keys/abc/revoke')).statusCode, 404);
  });

  await t.test(
    'a key shared with a restaurant the member does not belong to shows it only as a count',
    async () => {
      await storeApiKey(ctx.db, { name: 'Partner', restaurantIds: [bella, other], scopes: ['menu:read'] });
      const body = (await ana.get('/console/keys')).body;
      assert.ok(body.includes('+1 other'));
      assert.ok(!body.includes('Outro'));
    },
  );

  await t.test('a hostile key name is shown as text', async () => {
    const res = await create({
      name: '<img src=x onerror=alert(1)>',
      scopes: 'menu:read',
      restaurant_ids: String(bella),
      environment: 'live',
    });
    assert.equal(res.statusCode, 201);
    const body = (await ana.get('/console/keys')).body;
    assert.ok(body.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(!body.includes('<img src=x'));
  });
});
