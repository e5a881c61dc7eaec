// GET /v1/me: any valid credential learns its kind, name, environment, scopes, expiry and the
// restaurants it can act for, without a scope or a restaurant_id.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDemo } from '../../../src/demo/demo.ts';
import { signSession } from '../../../src/modules/auth/session-token.ts';
import { buildTestApp } from '../../support/app.ts';
import { newKey, postToken, seedRestaurants } from './support.ts';

test('GET /v1/me', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const me = (authorization: string) => app.inject({ url: '/v1/me', headers: { authorization } });

  await t.test("the demo keys' token answers their restaurants and scopes", async () => {
    const demo = await loadDemo(ctx.db, { fiscalTokenKey: ctx.secrets.fiscalTokenKey });
    for (const key of demo.api_keys) {
      const token = (await postToken(app, { grant_type: 'api_key', api_key: key.api_key })).json();
      const res = await me(`Bearer ${token.access_token}`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.kind, 'api_key');
      assert.equal(body.name, key.name);
      assert.equal(body.environment, 'test');
      assert.deepEqual(body.scopes.sort(), [...key.scopes].sort());
      assert.deepEqual(
        body.restaurants.map((r: { id: number }) => r.id),
        key.restaurant_ids,
        'a partner key needs no restaurant_id to learn its restaurants',
      );
      for (const restaurant of body.restaurants) {
        assert.equal(typeof restaurant.name, 'string');
        assert.equal(typeof restaurant.timezone, 'string');
      }
      const expires = Date.parse(body.expires_at) - Date.now();
      assert.ok(expires > 890_000 && expires <= 900_000, 'the access token expires in expires_in');
    }
  });

  const [only] = await seedRestaurants(ctx.db, 1);

  await t.test('a token of any scope may call it, a live key says live', async () => {
    await newKey(ctx.db, [only], ['financial:read'], 'live');
    const key = await newKey(ctx.db, [only], ['menu:read'], 'live');
    const token = (await postToken(app, { grant_type: 'api_key', api_key: key.api_key })).json();
    const res = await me(`Bearer ${token.access_token}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().scopes, ['menu:read']);
    assert.equal(res.json().environment, 'live');
  });

  await t.test('a restaurant session answers its one restaurant and no scopes', async () => {
    const session = signSession(only, 600, ctx.secrets.sessionSecret);
    const res = await me(`Bearer ${session}`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.kind, 'restaurant_session');
    assert.equal(body.name, null);
    assert.deepEqual(body.scopes, []);
    assert.deepEqual(
      body.restaurants.map((r: { id: number }) => r.id),
      [only],
    );
    assert.ok(Math.abs(Date.parse(body.expires_at) - (Date.now() + 600_000)) < 2000);
  });

  await t.test('no credential, an API key or a forged token is 401 invalid_token', async () => {
    const key = await newKey(ctx.db, [only]);
    for (const res of [
      await app.inject({ url: '/v1/me' }),
      await me(`Bearer ${key.api_key}`),
      await me('Bearer cat_forged'),
    ]) {
      assert.equal(res.statusCode, 401);
      assert.equal(res.json().key, 'invalid_token');
    }
  });
});

test('a restaurant session that expires while GET /v1/me runs is answered as authenticated, not 500', async (t) => {
  // The clock reaches the session's exp between the authentication and the handler.
  let late = false;
  const { app, ctx } = await buildTestApp(t, {
    routes: (app) =>
      app.addHook('preHandler', async () => {
        late = true;
      }),
  });
  const [only] = await seedRestaurants(ctx.db, 1);
  const session = signSession(only, 60, ctx.secrets.sessionSecret);
  const exp = JSON.parse(Buffer.from(session.split('.')[1], 'base64url').toString()).exp * 1000;
  const realNow = Date.now;
  t.mock.method(Date, 'now', () => (late ? exp : realNow()));
  const res = await app.inject({ url: '/v1/me', headers: { authorization: `Bearer ${session}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.json().expires_at, new Date(exp).toISOString());
});
