import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openDatabase } from '../../../src/db/database.ts';
import { revokeApiKey, storeApiKey } from '../../../src/modules/auth/api-keys.ts';
import { buildTestApp } from '../../support/app.ts';
import { testDatabaseUrl, testPooler } from '../../support/database.ts';
import { newKey, postToken, protectedRoute, seedRestaurants } from './support.ts';

const IDLE = 100;
const ABSOLUTE = 250;

test('POST /oauth/token with grant_type=refresh_token', async (t) => {
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    config: { refreshIdleTtlSeconds: IDLE, refreshAbsoluteTtlSeconds: ABSOLUTE },
  });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const key = await newKey(ctx.db, [r1], ['products:read', 'menu:read']);
  const exchange = async (apiKey = key.api_key, scope?: string) => {
    const res = await postToken(app, { grant_type: 'api_key', api_key: apiKey, ...(scope ? { scope } : {}) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const refresh = (token: string, extra: Record<string, string> = {}, headers?: Record<string, string>) =>
    postToken(app, { grant_type: 'refresh_token', refresh_token: token, ...extra }, headers);
  const call = (accessToken: string) =>
    app.inject({ url: '/v1/test/menu', headers: { authorization: `Bearer ${accessToken}` } });
  const assertInvalidGrant = (res: Awaited<ReturnType<typeof refresh>>) => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error, 'invalid_grant');
    assert.equal(res.headers['cache-control'], 'no-store');
  };

  await t.test(
    'a refresh returns a new access token and a new refresh token with the same scopes',
    async () => {
      const first = await exchange(key.api_key, 'menu:read');
      const res = await refresh(first.refresh_token);
      assert.equal(res.statusCode, 200, res.body);
      const next = res.json();
      assert.equal(next.token_type, 'Bearer');
      assert.equal(next.expires_in, 900);
      assert.equal(next.scope, 'menu:read', 'the successor keeps the narrowed scopes');
      assert.notEqual(next.access_token, first.access_token);
      assert.notEqual(next.refresh_token, first.refresh_token);
      assert.match(next.refresh_token, /^crt_/);
      assert.equal((await call(next.access_token)).statusCode, 200);
      assert.equal((await refresh(next.refresh_token)).statusCode, 200, 'the successor is usable');
    },
  );

  await t.test(
    'reusing a consumed refresh token is invalid_grant and revokes the family and the key access tokens',
    async () => {
      const other = await exchange();
      const first = await exchange();
      const next = (await refresh(first.refresh_token)).json();
      assertInvalidGrant(await refresh(first.refresh_token));
      assertInvalidGrant(await refresh(next.refresh_token));
      for (const token of [first.access_token, next.access_token, other.access_token]) {
        const res = await call(token);
        assert.equal(res.statusCode, 401, 'every access token of the key is invalidated at once');
        assert.equal(res.json().key, 'invalid_token');
      }
      assert.equal(
        (await refresh(other.refresh_token)).statusCode,
        200,
        'another family of the key lives on',
      );
    },
  );

  await t.test('an unknown refresh token is invalid_grant', async () => {
    assertInvalidGrant(await refresh('crt_unknown'));
  });

  await t.test('a missing refresh_token is invalid_request', async () => {
    const res = await postToken(app, { grant_type: 'refresh_token' });
    assert.equal(res.json().error, 'invalid_request');
  });

  const foreign: Record<string, string>[] = [
    { api_key: 'ck_test_x' },
    { client_secret: 's' },
    { scope: 'menu:read' },
    { client_id: 'pos' },
  ];
  for (const extra of foreign) {
    await t.test(
      `a refresh with ${Object.keys(extra)[0]} is invalid_request and consumes nothing`,
      async () => {
        const first = await exchange();
        const res = await refresh(first.refresh_token, extra);
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error, 'invalid_request');
        assert.equal((await refresh(first.refresh_token)).statusCode, 200);
      },
    );
  }

  await t.test('a refresh with an Authorization header is invalid_request', async () => {
    const first = await exchange();
    const res = await refresh(first.refresh_token, {}, { authorization: `Bearer ${first.access_token}` });
    assert.equal(res.json().error, 'invalid_request');
  });

  await t.test('a refresh token expires after the inactivity window', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const first = await exchange();
    t.mock.timers.tick((IDLE + 1) * 1000);
    assertInvalidGrant(await refresh(first.refresh_token));
  });

  await t.test(
    'reusing a consumed refresh token after its own inactivity window still revokes the family',
    async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      const first = await exchange();
      t.mock.timers.tick((IDLE - 10) * 1000);
      const next = (await refresh(first.refresh_token)).json();
      t.mock.timers.tick(20 * 1000);
      assertInvalidGrant(await refresh(first.refresh_token));
      assertInvalidGrant(await refresh(next.refresh_token));
      assert.equal((await call(next.access_token)).statusCode, 401, 'the successor access token is revoked');
    },
  );

  await t.test('each refresh restarts the inactivity window', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    let token = (await exchange()).refresh_token;
    for (let i = 0; i < 2; i++) {
      t.mock.timers.tick((IDLE - 10) * 1000);
      const res = await refresh(token);
      assert.equal(res.statusCode, 200, res.body);
      token = res.json().refresh_token;
    }
  });

  await t.test('the family absolute limit ends refreshes even inside the inactivity window', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    let token = (await exchange()).refresh_token;
    for (const step of [90, 90, 60]) {
      t.mock.timers.tick(step * 1000);
      const res = await refresh(token);
      assert.equal(res.statusCode, 200, `refresh at ${step}s: ${res.body}`);
      token = res.json().refresh_token;
    }
    t.mock.timers.tick(15 * 1000);
    assertInvalidGrant(await refresh(token));
  });

  await t.test(
    'revoking the key fails its refresh tokens with invalid_grant and its access tokens at once',
    async () => {
      const doomed = await newKey(ctx.db, [r1]);
      const pair = await exchange(doomed.api_key);
      await revokeApiKey(ctx.db, doomed.id);
      assertInvalidGrant(await refresh(pair.refresh_token));
      assert.equal((await call(pair.access_token)).statusCode, 401);
    },
  );

  await t.test('tokens of a revoked key stay ended when an import defines the key again', async () => {
    const redefine = (apiKey: typeof key, revokedAt: Date | null) =>
      storeApiKey(ctx.db, {
        id: apiKey.id,
        key: apiKey.api_key,
        restaurantIds: [r1],
        scopes: apiKey.scopes,
        revokedAt,
      });
    for (const revoke of [
      (k: typeof key) => revokeApiKey(ctx.db, k.id),
      (k: typeof key) => redefine(k, new Date()),
    ]) {
      const revived = await newKey(ctx.db, [r1]);
      const pair = await exchange(revived.api_key);
      await revoke(revived);
      await redefine(revived, null);
      assertInvalidGrant(await refresh(pair.refresh_token));
      assert.equal((await call(pair.access_token)).statusCode, 401);
      assert.equal((await call((await exchange(revived.api_key)).access_token)).statusCode, 200);
    }
  });

  await t.test('a refresh never keeps a scope the key has since lost', async () => {
    const shrinking = await newKey(ctx.db, [r1], ['products:read', 'menu:read']);
    const pair = await exchange(shrinking.api_key);
    await storeApiKey(ctx.db, {
      id: shrinking.id,
      key: shrinking.api_key,
      restaurantIds: [r1],
      scopes: ['menu:read'],
    });
    const res = await refresh(pair.refresh_token);
    assert.equal(res.json().scope, 'menu:read');
  });

  await t.test('of 20 concurrent refreshes of one token exactly one succeeds', async () => {
    const first = await exchange();
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(first.refresh_token)));
    const statuses = results.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 1, String(statuses));
    assert.ok(results.filter((r) => r.statusCode !== 200).every((r) => r.json().error === 'invalid_grant'));
  });
});

test('two app instances on one database: of 20 concurrent refreshes exactly one succeeds', async (t) => {
  const first = await buildTestApp(t);
  // On PostgreSQL the second instance has a connection pool of its own, as a second process would.
  const database = testDatabaseUrl
    ? {
        ...(await openDatabase({ databaseUrl: first.database.url, pooler: testPooler })),
        url: first.database.url,
      }
    : first.database;
  if (database !== first.database) t.after(() => database.close());
  const second = await buildTestApp(t, { database });
  const [r1] = await seedRestaurants(first.ctx.db, 1);
  const key = await newKey(first.ctx.db, [r1]);
  const pair = (await postToken(first.app, { grant_type: 'api_key', api_key: key.api_key })).json();
  const form = { grant_type: 'refresh_token', refresh_token: pair.refresh_token };
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) => postToken(i % 2 ? first.app : second.app, form)),
  );
  const statuses = results.map((r) => r.statusCode);
  assert.equal(statuses.filter((s) => s === 200).length, 1, String(statuses));
  assert.equal(statuses.filter((s) => s === 400).length, 19);
  const winner = results.find((r) => r.statusCode === 200)!.json();
  const retry = await postToken(second.app, {
    grant_type: 'refresh_token',
    refresh_token: winner.refresh_token,
  });
  assert.equal(retry.json().error, 'invalid_grant', 'the losers counted as reuse and revoked the family');
});
