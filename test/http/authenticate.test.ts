import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { revokeApiKey } from '../../src/modules/auth/api-keys.ts';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { newKey, postToken, protectedRoute, seedRestaurants } from '../modules/auth/support.ts';
import { buildTestApp } from '../support/app.ts';
import { bearerFor, sessionFor } from '../support/tokens.ts';

const INVALID_TOKEN = 'Bearer error="invalid_token"';

test('bearer authentication and restaurant scoping of data routes', async (t) => {
  const { app, ctx } = await buildTestApp(t, { routes: protectedRoute });
  const [r1, r2, r3] = await seedRestaurants(ctx.db, 3);
  const single = await bearerFor(ctx.db, [r1], ['products:read']);
  const partner = await bearerFor(ctx.db, [r1, r2], ['products:read']);
  const menuOnly = await bearerFor(ctx.db, [r1], ['menu:read']);
  const session = sessionFor(r2, ctx.secrets.sessionSecret);
  const get = (url: string, headers: { authorization?: string } = {}) => app.inject({ url, headers });
  const assertError = (res: Awaited<ReturnType<typeof get>>, status: number, key: string) => {
    assert.equal(res.statusCode, status, res.body);
    assert.equal(res.json().key, key);
    assert.ok(res.headers['x-error-id']);
    if (status === 401) assert.equal(res.headers['www-authenticate'], INVALID_TOKEN);
  };

  await t.test('no Authorization header is 401 invalid_token with WWW-Authenticate', async () => {
    assertError(await get('/v1/test/whoami'), 401, 'invalid_token');
  });

  await t.test('another scheme or a malformed header is 401 invalid_token', async () => {
    assertError(await get('/v1/test/whoami', { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'invalid_token');
    assertError(await get('/v1/test/whoami', { authorization: 'Bearer' }), 401, 'invalid_token');
    assertError(await get('/v1/test/whoami', { authorization: 'Bearer a b' }), 401, 'invalid_token');
  });

  await t.test('the Bearer scheme is case-insensitive', async () => {
    const token = single.authorization.slice('Bearer '.length);
    assert.equal((await get('/v1/test/whoami', { authorization: `bearer ${token}` })).statusCode, 200);
  });

  await t.test('an unknown access token is 401 invalid_token', async () => {
    assertError(await get('/v1/test/whoami', { authorization: 'Bearer cat_unknown' }), 401, 'invalid_token');
  });

  await t.test('an expired access token is 401 invalid_token', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    assert.equal((await get('/v1/test/whoami', single)).statusCode, 200);
    t.mock.timers.tick(901_000);
    assertError(await get('/v1/test/whoami', single), 401, 'invalid_token');
  });

  await t.test('API keys and refresh tokens are never accepted as Bearer', async () => {
    const key = await newKey(ctx.db, [r1]);
    const pair = (await postToken(app, { grant_type: 'api_key', api_key: key.api_key })).json();
    const asBearer = await get('/v1/test/whoami', { authorization: `Bearer ${key.api_key}` });
    assertError(asBearer, 401, 'invalid_token');
    assert.match(asBearer.json().message, /API key .*exchange it at POST \/oauth\/token/);
    assert.ok(!asBearer.body.includes(key.api_key), 'the key is not echoed');
    assertError(
      await get('/v1/test/whoami', { authorization: `Bearer ${pair.refresh_token}` }),
      401,
      'invalid_token',
    );
    assert.equal(
      (await get('/v1/test/whoami', { authorization: `Bearer ${pair.access_token}` })).statusCode,
      200,
    );
  });

  await t.test('a credential in the URL is refused even beside a valid header', async () => {
    const token = single.authorization.slice('Bearer '.length);
    assertError(await get(`/v1/test/whoami?access_token=${token}`), 401, 'invalid_token');
    assertError(await get(`/v1/test/whoami?access_token=${token}`, single), 401, 'invalid_token');
    assertError(await get('/v1/test/whoami?api_key=ck_test_x', single), 401, 'invalid_token');
  });

  await t.test('a token without the route scope is 403 insufficient_scope', async () => {
    const res = await get('/v1/test/whoami', menuOnly);
    assertError(res, 403, 'insufficient_scope');
    assert.match(String(res.headers['www-authenticate']), /insufficient_scope/);
  });

  await t.test('revoking the key takes effect on the next request', async () => {
    const doomed = await bearerFor(ctx.db, [r1], ['products:read']);
    assert.equal((await get('/v1/test/whoami', doomed)).statusCode, 200);
    await revokeApiKey(ctx.db, doomed.apiKeyId);
    assertError(await get('/v1/test/whoami', doomed), 401, 'invalid_token');
  });

  await t.test('a single-restaurant credential has its restaurant inferred', async () => {
    assert.deepEqual((await get('/v1/test/whoami', single)).json(), { restaurant_id: r1, kind: 'api_key' });
    assert.equal((await get(`/v1/test/whoami?restaurant_id=${r1}`, single)).statusCode, 200);
  });

  await t.test(
    'a single-restaurant credential asking for another restaurant is 403 restaurant_forbidden',
    async () => {
      assertError(await get(`/v1/test/whoami?restaurant_id=${r2}`, single), 403, 'restaurant_forbidden');
    },
  );

  await t.test(
    'a multi-restaurant credential without restaurant_id is 400 restaurant_id_required',
    async () => {
      assertError(await get('/v1/test/whoami', partner), 400, 'restaurant_id_required');
    },
  );

  await t.test('a multi-restaurant credential gets the restaurant it names, if authorized', async () => {
    assert.equal((await get(`/v1/test/whoami?restaurant_id=${r2}`, partner)).json().restaurant_id, r2);
    assertError(await get(`/v1/test/whoami?restaurant_id=${r3}`, partner), 403, 'restaurant_forbidden');
  });

  await t.test('a restaurant_id that is not a positive integer is 400 invalid_query', async () => {
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999']) {
      assertError(await get(`/v1/test/whoami?restaurant_id=${bad}`, partner), 400, 'invalid_query');
    }
  });

  await t.test('a restaurant session needs no scope and is limited to its restaurant', async () => {
    assert.deepEqual((await get('/v1/test/whoami', session)).json(), {
      restaurant_id: r2,
      kind: 'restaurant_session',
    });
    assert.equal((await get('/v1/test/menu', session)).statusCode, 200);
    assert.equal((await get(`/v1/test/whoami?restaurant_id=${r2}`, session)).statusCode, 200);
  });

  await t.test(
    'a restaurant session with a conflicting restaurant_id is 403 restaurant_forbidden',
    async () => {
      assertError(await get(`/v1/test/whoami?restaurant_id=${r1}`, session), 403, 'restaurant_forbidden');
    },
  );

  await t.test('an expired, tampered or foreign session is 401 invalid_token', async () => {
    const expired = signSession(r2, 60, ctx.secrets.sessionSecret, Date.now() - 120_000);
    assertError(await get('/v1/test/whoami', { authorization: `Bearer ${expired}` }), 401, 'invalid_token');
    const [h, , s] = session.authorization.slice(7).split('.');
    const forged = Buffer.from(
      JSON.stringify({ restaurant_id: r1, typ: 'restaurant_session', exp: 9e9 }),
    ).toString('base64url');
    assertError(
      await get('/v1/test/whoami', { authorization: `Bearer ${h}.${forged}.${s}` }),
      401,
      'invalid_token',
    );
    const foreign = sessionFor(r2, 'a-different-secret-of-at-least-32-chars');
    assertError(await get('/v1/test/whoami', foreign), 401, 'invalid_token');
  });

  await t.test('a correctly signed session whose jti is not a UUID is 401 invalid_token', async () => {
    const [h] = session.authorization.slice(7).split('.');
    const signed = (claims: object) => {
      const body = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      const signature = createHmac('sha256', ctx.secrets.sessionSecret).update(body).digest('base64url');
      return { authorization: `Bearer ${body}.${signature}` };
    };
    const claims = { restaurant_id: r2, iat: 0, exp: 9e9, typ: 'restaurant_session' };
    assert.equal((await get('/v1/test/whoami', signed({ ...claims, jti: randomUUID() }))).statusCode, 200);
    for (const jti of [undefined, 42, 'not-a-uuid', `${randomUUID()}'`, { id: 1 }])
      assertError(await get('/v1/test/whoami', signed({ ...claims, jti })), 401, 'invalid_token');
  });
});
