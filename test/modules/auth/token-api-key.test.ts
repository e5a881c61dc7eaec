import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revokeApiKey, storeApiKey } from '../../../src/modules/auth/api-keys.ts';
import { buildTestApp } from '../../support/app.ts';
import { newKey, postToken, protectedRoute, seedRestaurants } from './support.ts';

test('POST /oauth/token with grant_type=api_key', async (t) => {
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    config: { accessTokenTtlSeconds: 120 },
  });
  const [r1, r2] = await seedRestaurants(ctx.db, 2);
  const key = await newKey(ctx.db, [r1], ['products:read', 'menu:read']);
  const exchange = (form: Record<string, string>, headers?: Record<string, string>) =>
    postToken(app, { grant_type: 'api_key', ...form }, headers);

  const assertOAuthError = (res: Awaited<ReturnType<typeof exchange>>, status: number, error: string) => {
    assert.equal(res.statusCode, status, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'error_description']);
    assert.equal(res.json().error, error);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
    if (status === 401) assert.ok(res.headers['www-authenticate'], 'a 401 carries WWW-Authenticate');
  };

  await t.test('an API key is exchanged for an RFC 6749 token response that is never cached', async () => {
    const res = await exchange({ api_key: key.api_key });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'access_token',
      'expires_in',
      'refresh_token',
      'scope',
      'token_type',
    ]);
    assert.equal(body.token_type, 'Bearer');
    assert.equal(body.expires_in, 120, 'expires_in follows ACCESS_TOKEN_TTL_SECONDS');
    assert.equal(body.scope, 'products:read menu:read');
    assert.match(body.access_token, /^cat_[A-Za-z0-9_-]{43}$/);
    assert.match(body.refresh_token, /^crt_[A-Za-z0-9_-]{43}$/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
    const data = await app.inject({
      url: '/v1/test/whoami',
      headers: { authorization: `Bearer ${body.access_token}` },
    });
    assert.equal(data.statusCode, 200);
    assert.deepEqual(data.json(), { restaurant_id: r1, kind: 'api_key' });
  });

  await t.test('the token response carries its fields in the order of contract 2.5', async () => {
    // Contract 2.5: access_token, token_type, expires_in, refresh_token, scope.
    const res = await exchange({ api_key: key.api_key });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(Object.keys(res.json()), [
      'access_token',
      'token_type',
      'expires_in',
      'refresh_token',
      'scope',
    ]);
  });

  await t.test('each exchange starts a new refresh-token family', async () => {
    const a = (await exchange({ api_key: key.api_key })).json();
    const b = (await exchange({ api_key: key.api_key })).json();
    const families = await ctx.db
      .selectFrom('refresh_tokens')
      .select('family_id')
      .where(
        'token_hash',
        'in',
        [a.refresh_token, b.refresh_token].map((x: string) => hash(x)),
      )
      .execute();
    assert.equal(new Set(families.map((f) => f.family_id)).size, 2);
  });

  await t.test('the exchange records the key last_used_at', async () => {
    const fresh = await newKey(ctx.db, [r1]);
    const before = Date.now();
    await exchange({ api_key: fresh.api_key });
    const row = await ctx.db
      .selectFrom('api_keys')
      .select('last_used_at')
      .where('id', '=', fresh.id)
      .executeTakeFirst();
    assert.ok(row?.last_used_at && row.last_used_at.getTime() >= before - 5);
  });

  await t.test('last_used_at moves at most once a second, so exchanges of one key never queue', async () => {
    const fresh = await newKey(ctx.db, [r1]);
    const lastUsed = async (at?: Date) => {
      if (at)
        await ctx.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', fresh.id).execute();
      const row = await ctx.db
        .selectFrom('api_keys')
        .select('last_used_at')
        .where('id', '=', fresh.id)
        .execute();
      return row[0].last_used_at?.getTime();
    };
    const recent = new Date(Date.now() - 100);
    await lastUsed(recent);
    assert.equal((await exchange({ api_key: fresh.api_key })).statusCode, 200);
    assert.equal(await lastUsed(), recent.getTime(), 'a use within the second is not written again');
    const old = new Date(Date.now() - 2000);
    await lastUsed(old);
    assert.equal((await exchange({ api_key: fresh.api_key })).statusCode, 200);
    assert.ok((await lastUsed())! > old.getTime() + 1000);
  });

  await t.test('scope narrows the key scopes, and the token has only those', async () => {
    const res = await exchange({ api_key: key.api_key, scope: 'menu:read' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().scope, 'menu:read');
    const auth = { authorization: `Bearer ${res.json().access_token}` };
    assert.equal((await app.inject({ url: '/v1/test/menu', headers: auth })).statusCode, 200);
    const denied = await app.inject({ url: '/v1/test/whoami', headers: auth });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().key, 'insufficient_scope');
  });

  await t.test('a scope the key lacks is 400 invalid_scope (no widening)', async () => {
    assertOAuthError(
      await exchange({ api_key: key.api_key, scope: 'menu:read products:write' }),
      400,
      'invalid_scope',
    );
  });

  await t.test('an unknown scope is 400 invalid_scope', async () => {
    assertOAuthError(await exchange({ api_key: key.api_key, scope: 'admin' }), 400, 'invalid_scope');
  });

  await t.test('a wrong key is 401 invalid_client and the key never appears in the answer', async () => {
    const wrong = `${key.api_key.slice(0, -4)}AAAA`;
    const res = await exchange({ api_key: wrong });
    assertOAuthError(res, 401, 'invalid_client');
    assert.ok(!res.body.includes(wrong) && !res.body.includes(key.api_key));
  });

  await t.test('a key without a known prefix is 401 invalid_client', async () => {
    assertOAuthError(await exchange({ api_key: 'sk_something' }), 401, 'invalid_client');
  });

  await t.test('an expired key is 401 invalid_client', async () => {
    const expired = await storeApiKey(ctx.db, {
      restaurantIds: [r1],
      scopes: ['menu:read'],
      expiresAt: new Date(Date.now() - 1000),
    });
    assertOAuthError(await exchange({ api_key: expired.api_key }), 401, 'invalid_client');
  });

  await t.test('a revoked key is 401 invalid_client', async () => {
    const revoked = await newKey(ctx.db, [r1]);
    await revokeApiKey(ctx.db, revoked.id);
    assertOAuthError(await exchange({ api_key: revoked.api_key }), 401, 'invalid_client');
  });

  await t.test('a key defined again ends at once the access tokens holding what it lost', async () => {
    const id = 900_001;
    const scopes = ['products:read', 'menu:read'];
    const first = await storeApiKey(ctx.db, { id, restaurantIds: [r1, r2], scopes });
    const whole = (await exchange({ api_key: first.api_key })).json();
    const menuOnly = (await exchange({ api_key: first.api_key, scope: 'menu:read' })).json();
    const read = (token: string, url = `/v1/test/menu?restaurant_id=${r1}`) =>
      app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    assert.equal((await read(whole.access_token)).statusCode, 200);

    await storeApiKey(ctx.db, { id, key: first.api_key, restaurantIds: [r1, r2], scopes: ['menu:read'] });
    assert.equal((await read(whole.access_token)).statusCode, 401, 'it held products:read');
    assert.equal((await read(menuOnly.access_token)).statusCode, 200, 'it holds nothing the key lost');

    await storeApiKey(ctx.db, { id, key: first.api_key, restaurantIds: [r1], scopes: ['menu:read'] });
    assert.equal((await read(menuOnly.access_token)).statusCode, 401, 'it held restaurant r2');

    const again = (await exchange({ api_key: first.api_key })).json();
    assert.equal((await read(again.access_token)).statusCode, 200);
    const replaced = await storeApiKey(ctx.db, { id, restaurantIds: [r1], scopes: ['menu:read'] });
    assert.notEqual(replaced.api_key, first.api_key);
    assert.equal((await read(again.access_token)).statusCode, 401, "a new secret ends the old one's tokens");
    const refreshed = await postToken(app, {
      grant_type: 'refresh_token',
      refresh_token: again.refresh_token,
    });
    assert.equal(refreshed.statusCode, 400, 'and its refresh tokens');
    assert.equal(refreshed.json().error, 'invalid_grant');
    assert.equal((await exchange({ api_key: replaced.api_key })).statusCode, 200);
  });

  await t.test('a key presented with the prefix of another environment is 401 invalid_client', async () => {
    const odd = await storeApiKey(ctx.db, {
      key: 'ck_test_stored-as-a-live-key-0123456789abcdef',
      environment: 'live',
      restaurantIds: [r1],
      scopes: ['menu:read'],
    });
    assertOAuthError(await exchange({ api_key: odd.api_key }), 401, 'invalid_client');
    const live = await newKey(ctx.db, [r1], ['menu:read'], 'live');
    assert.equal((await exchange({ api_key: live.api_key })).statusCode, 200);
  });

  await t.test('a missing api_key is 400 invalid_request', async () => {
    assertOAuthError(await exchange({}), 400, 'invalid_request');
  });

  const mixed: Record<string, string>[] = [
    { client_id: 'pos' },
    { client_secret: 'x' },
    { username: 'a', password: 'b' },
  ];
  for (const extra of mixed) {
    await t.test(`mixing in ${Object.keys(extra).join(' and ')} is 400 invalid_request`, async () => {
      assertOAuthError(await exchange({ api_key: key.api_key, ...extra }), 400, 'invalid_request');
    });
  }

  await t.test('Basic authentication with a key exchange is 400 invalid_request', async () => {
    const basic = `Basic ${Buffer.from('pos:secret').toString('base64')}`;
    assertOAuthError(
      await exchange({ api_key: key.api_key }, { authorization: basic }),
      400,
      'invalid_request',
    );
  });

  await t.test('a multi-restaurant key needs restaurant_id on data routes', async () => {
    const partner = await newKey(ctx.db, [r1, r2]);
    const token = (await exchange({ api_key: partner.api_key })).json().access_token;
    const res = await app.inject({
      url: `/v1/test/whoami?restaurant_id=${r2}`,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.deepEqual(res.json(), { restaurant_id: r2, kind: 'api_key' });
  });
});

import { createHash } from 'node:crypto';

function hash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
