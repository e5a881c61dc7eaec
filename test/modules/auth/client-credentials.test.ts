import assert from 'node:assert/strict';
import { test } from 'node:test';
import { importData } from '../../../src/import/import.ts';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { buildTestApp } from '../../support/app.ts';
import { postToken, protectedRoute, seedRestaurants } from './support.ts';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

test('POST /oauth/token with grant_type=client_credentials', async (t) => {
  const { app, ctx } = await buildTestApp(t, { routes: protectedRoute });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const client = { clientId: 'erp', name: 'ERP', restaurantIds: [r1], redirectUris: [] };
  await storeOAuthClient(ctx.db, {
    ...client,
    clientSecret: 's3cret:with+symbols',
    scopes: ['products:read', 'menu:read'],
    grantTypes: ['client_credentials'],
  });
  await storeOAuthClient(ctx.db, {
    ...client,
    clientId: 'no-cc',
    clientSecret: 'other-secret',
    scopes: ['menu:read'],
    grantTypes: ['authorization_code'],
  });
  await storeOAuthClient(ctx.db, {
    ...client,
    clientId: 'public-app',
    clientSecret: null,
    scopes: ['menu:read'],
    grantTypes: ['client_credentials'],
  });
  const cc = (form: Record<string, string> = {}, authorization?: string) =>
    postToken(app, { grant_type: 'client_credentials', ...form }, authorization ? { authorization } : {});
  const assertError = (res: Awaited<ReturnType<typeof cc>>, status: number, error: string) => {
    assert.equal(res.statusCode, status, res.body);
    assert.equal(res.json().error, error);
    if (status === 401) assert.equal(res.headers['www-authenticate'], 'Basic realm="comanda"');
  };

  await t.test('client_secret_basic returns an access token and no refresh token', async () => {
    const res = await cc({}, basic('erp', 's3cret:with+symbols'));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(res.json().scope, 'products:read menu:read');
    assert.equal(res.headers['cache-control'], 'no-store');
    const data = await app.inject({
      url: '/v1/test/whoami',
      headers: { authorization: `Bearer ${res.json().access_token}` },
    });
    assert.deepEqual(data.json(), { restaurant_id: r1, kind: 'oauth_client' });
  });

  await t.test('client_secret_post returns an access token', async () => {
    const res = await cc({ client_id: 'erp', client_secret: 's3cret:with+symbols', scope: 'menu:read' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().scope, 'menu:read');
  });

  await t.test('Basic and body credentials together are 400 invalid_request', async () => {
    assertError(await cc({ client_id: 'erp' }, basic('erp', 's3cret:with+symbols')), 400, 'invalid_request');
  });

  await t.test('a wrong secret is 401 invalid_client with WWW-Authenticate', async () => {
    assertError(await cc({}, basic('erp', 'wrong')), 401, 'invalid_client');
    assertError(await cc({ client_id: 'erp', client_secret: 'wrong' }), 401, 'invalid_client');
  });

  await t.test('an unknown client or no credentials at all is 401 invalid_client', async () => {
    assertError(await cc({}, basic('nobody', 'x')), 401, 'invalid_client');
    assertError(await cc({ client_id: 'erp' }), 401, 'invalid_client');
    assertError(await cc(), 401, 'invalid_client');
  });

  await t.test('a client_id holding a NUL character is 401 invalid_client, not a 500', async () => {
    assertError(await cc({}, basic('erp\u0000', 's3cret:with+symbols')), 401, 'invalid_client');
    assertError(await cc({ client_id: 'erp\u0000', client_secret: 'x' }), 401, 'invalid_client');
  });

  await t.test('a public client cannot authenticate for client_credentials', async () => {
    assertError(await cc({ client_id: 'public-app', client_secret: 'anything' }), 401, 'invalid_client');
  });

  await t.test('a client not registered for client_credentials is 400 unauthorized_client', async () => {
    assertError(await cc({}, basic('no-cc', 'other-secret')), 400, 'unauthorized_client');
  });

  await t.test('a scope beyond the client scopes is 400 invalid_scope', async () => {
    assertError(
      await cc({ scope: 'financial:read' }, basic('erp', 's3cret:with+symbols')),
      400,
      'invalid_scope',
    );
  });

  await t.test(
    'a client defined again by an import ends at once the access tokens holding what it lost',
    async () => {
      const [r2] = await seedRestaurants(ctx.db, 1);
      const defined = (secret: string, restaurant_ids: number[], scopes: string[]) => ({
        oauth_clients: [
          { client_id: 'mirror', client_secret: secret, name: 'Mirror', restaurant_ids, scopes },
        ].map((client) => ({ ...client, grant_types: ['client_credentials'] })),
      });
      await importData(ctx.db, defined('first', [r1, r2], ['products:read', 'menu:read']));
      const issue = async (scope: string) =>
        (await cc({ scope }, basic('mirror', 'first'))).json().access_token as string;
      const read = (token: string, url = `/v1/test/menu?restaurant_id=${r1}`) =>
        app.inject({ url, headers: { authorization: `Bearer ${token}` } });
      const whole = await issue('products:read menu:read');
      const menuOnly = await issue('menu:read');
      assert.equal((await read(whole)).statusCode, 200);

      await importData(ctx.db, defined('first', [r1, r2], ['menu:read']));
      assert.equal((await read(whole)).statusCode, 401, 'it held products:read');
      assert.equal((await read(menuOnly)).statusCode, 200, 'it holds nothing the client lost');

      await importData(ctx.db, defined('first', [r1], ['menu:read']));
      assert.equal((await read(menuOnly)).statusCode, 401, 'it held restaurant r2');

      const again = await issue('menu:read');
      await importData(ctx.db, defined('first', [r1], ['menu:read']));
      assert.equal((await read(again)).statusCode, 200, 'the same definition ends nothing');
      await importData(ctx.db, defined('second', [r1], ['menu:read']));
      assert.equal((await read(again)).statusCode, 401, "a new secret ends the old one's tokens");
      assertError(await cc({}, basic('mirror', 'first')), 401, 'invalid_client');
      assert.equal(
        (await read(await (await cc({}, basic('mirror', 'second'))).json().access_token)).statusCode,
        200,
      );
    },
  );

  await t.test('revoking the client invalidates its access tokens on the next request', async () => {
    const token = (await cc({}, basic('erp', 's3cret:with+symbols'))).json().access_token;
    await ctx.db
      .updateTable('oauth_clients')
      .set({ revoked_at: new Date() })
      .where('client_id', '=', 'erp')
      .execute();
    const res = await app.inject({ url: '/v1/test/whoami', headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.statusCode, 401);
    assertError(await cc({}, basic('erp', 's3cret:with+symbols')), 401, 'invalid_client');
  });
});
