import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { verifySession } from '../../../src/modules/auth/session-token.ts';
import { buildTestApp } from '../../support/app.ts';
import { sessionFor } from '../../support/tokens.ts';
import { postToken, protectedRoute, REDIRECT_URI as REDIRECT, seedRestaurants } from './support.ts';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

test('the authorization code flow with PKCE', async (t) => {
  const { app, ctx } = await buildTestApp(t, { routes: protectedRoute });
  const [r1, r2] = await seedRestaurants(ctx.db, 2);
  const app1 = {
    name: 'POS',
    restaurantIds: [r1],
    redirectUris: [REDIRECT],
    scopes: ['products:read', 'menu:read'],
  };
  await storeOAuthClient(ctx.db, {
    ...app1,
    clientId: 'pos-app',
    clientSecret: null,
    grantTypes: ['authorization_code'],
  });
  await storeOAuthClient(ctx.db, {
    ...app1,
    clientId: 'other-app',
    clientSecret: null,
    grantTypes: ['authorization_code'],
  });
  await storeOAuthClient(ctx.db, {
    ...app1,
    clientId: 'confidential',
    clientSecret: 'x',
    grantTypes: ['client_credentials'],
  });
  const session = sessionFor(r1, ctx.secrets.sessionSecret);

  const authorizeQuery = (challenge: string, extra: Record<string, string> = {}) =>
    new URLSearchParams({
      response_type: 'code',
      client_id: 'pos-app',
      redirect_uri: REDIRECT,
      scope: 'menu:read',
      state: 'st-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    });
  const authorize = (query: URLSearchParams, headers: Record<string, string> = session) =>
    app.inject({ url: `/oauth/authorize?${query}`, headers });
  const redirected = (res: Awaited<ReturnType<typeof authorize>>) => {
    assert.equal(res.statusCode, 302, res.body);
    const location = new URL(String(res.headers.location));
    assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
    return location.searchParams;
  };
  const codeFor = async (challenge: string) =>
    redirected(await authorize(authorizeQuery(challenge))).get('code')!;
  const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
    postToken(app, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: 'pos-app',
      code_verifier: verifier,
      ...extra,
    });
  const call = (token: string) =>
    app.inject({ url: '/v1/test/menu', headers: { authorization: `Bearer ${token}` } });

  await t.test(
    'an approved code is exchanged for tokens of the session restaurant; refresh needs client_id',
    async () => {
      const { verifier, challenge } = pkce();
      const params = redirected(await authorize(authorizeQuery(challenge)));
      assert.equal(params.get('state'), 'st-1');
      assert.match(params.get('code')!, /^cac_/);
      const res = await exchange(params.get('code')!, verifier);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().scope, 'menu:read');
      assert.match(res.json().refresh_token, /^crt_/);
      assert.deepEqual((await call(res.json().access_token)).json(), { restaurant_id: r1 });
      const refresh = (extra: Record<string, string>) =>
        postToken(app, { grant_type: 'refresh_token', refresh_token: res.json().refresh_token, ...extra });
      assert.equal((await refresh({})).json().error, 'invalid_request', 'client_id is required');
      assert.equal((await refresh({ client_id: 'other-app' })).json().error, 'invalid_grant');
      assert.equal((await refresh({ client_id: 'pos-app' })).statusCode, 200);
    },
  );

  await t.test('a reused code is invalid_grant and revokes what it issued', async () => {
    const { verifier, challenge } = pkce();
    const code = await codeFor(challenge);
    const first = (await exchange(code, verifier)).json();
    const again = await exchange(code, verifier);
    assert.equal(again.statusCode, 400);
    assert.equal(again.json().error, 'invalid_grant');
    assert.equal((await call(first.access_token)).statusCode, 401);
    const refresh = await postToken(app, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: 'pos-app',
    });
    assert.equal(refresh.json().error, 'invalid_grant');
  });

  await t.test('a code lives 60 seconds', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const { verifier, challenge } = pkce();
    const code = await codeFor(challenge);
    t.mock.timers.tick(61_000);
    assert.equal((await exchange(code, verifier)).json().error, 'invalid_grant');
  });

  await t.test(
    'a wrong verifier, redirect_uri or client is invalid_grant and spends the code: the right one then fails',
    async () => {
      const failures = [
        (code: string) => exchange(code, pkce().verifier),
        (code: string, verifier: string) => exchange(code, verifier, { redirect_uri: `${REDIRECT}/x` }),
        (code: string, verifier: string) => exchange(code, verifier, { client_id: 'other-app' }),
      ];
      for (const fail of failures) {
        const { verifier, challenge } = pkce();
        const code = await codeFor(challenge);
        assert.equal((await fail(code, verifier)).json().error, 'invalid_grant');
        const right = await exchange(code, verifier);
        assert.equal(right.statusCode, 400, right.body);
        assert.equal(right.json().error, 'invalid_grant');
      }
    },
  );

  await t.test('a malformed verifier or a missing parameter is invalid_request', async () => {
    const code = await codeFor(pkce().challenge);
    assert.equal((await exchange(code, 'short')).json().error, 'invalid_request');
    const res = await postToken(app, {
      grant_type: 'authorization_code',
      code,
      client_id: 'pos-app',
      redirect_uri: REDIRECT,
    });
    assert.equal(res.json().error, 'invalid_request');
  });

  await t.test(
    'an unknown client_id is 401 invalid_client; a confidential one is unauthorized_client',
    async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(challenge);
      const unknown = await exchange(code, verifier, { client_id: 'nobody' });
      assert.equal(unknown.statusCode, 401);
      assert.ok(unknown.headers['www-authenticate']);
      assert.equal(
        (await exchange(code, verifier, { client_id: 'confidential' })).json().error,
        'unauthorized_client',
      );
    },
  );

  await t.test(
    'a client_id holding a NUL character is 401 invalid_client at the token endpoint and 400 at the authorization endpoint, not a 500',
    async () => {
      const { verifier, challenge } = pkce();
      const code = await codeFor(challenge);
      const token = await exchange(code, verifier, { client_id: 'pos-app\u0000' });
      assert.equal(token.statusCode, 401, token.body);
      assert.equal(token.json().error, 'invalid_client');
      const approval = await authorize(authorizeQuery(challenge, { client_id: 'pos-app\u0000' }));
      assert.equal(approval.statusCode, 400, approval.body);
      assert.equal(approval.headers.location, undefined);
      assert.equal(approval.json().error, 'invalid_request');
    },
  );

  await t.test(
    'an unknown client or an unregistered redirect_uri is answered with 400, never redirected',
    async () => {
      const { challenge } = pkce();
      const targets: Record<string, string>[] = [
        { client_id: 'nobody' },
        { redirect_uri: 'https://evil.example/cb' },
        { redirect_uri: '' },
      ];
      for (const extra of targets) {
        const res = await authorize(authorizeQuery(challenge, extra));
        assert.equal(res.statusCode, 400, JSON.stringify(extra));
        assert.equal(res.headers.location, undefined);
        assert.equal(res.json().error, 'invalid_request');
      }
    },
  );

  await t.test(
    'a session whose console sign-in was ended cannot approve an application: access_denied, no code',
    async () => {
      const ended = sessionFor(r1, ctx.secrets.sessionSecret);
      const jti = verifySession(ended.authorization.slice(7), ctx.secrets.sessionSecret)!.jti;
      const { id: staffId } = await ctx.db
        .insertInto('staff_users')
        .values({ email: 'signed-out@example.com', password_hash: 'x' } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      const now = new Date();
      await ctx.db
        .insertInto('console_sessions')
        .values({
          id: jti,
          staff_user_id: staffId,
          restaurant_id: r1,
          created_at: now,
          expires_at: new Date(now.getTime() + 3600e3),
        } as never)
        .execute();
      assert.ok(redirected(await authorize(authorizeQuery(pkce().challenge), ended)).get('code'));
      await ctx.db
        .updateTable('console_sessions')
        .set({ ended_at: new Date() } as never)
        .where('id', '=', jti)
        .execute();
      const params = redirected(await authorize(authorizeQuery(pkce().challenge), ended));
      assert.equal(params.get('error'), 'access_denied');
      assert.equal(params.get('code'), null);
    },
  );

  const redirectCases: [string, Record<string, string>, Record<string, string> | undefined, string][] = [
    ['response_type=token', { response_type: 'token' }, undefined, 'unsupported_response_type'],
    ['no code_challenge', { code_challenge: '' }, undefined, 'invalid_request'],
    ['code_challenge_method=plain', { code_challenge_method: 'plain' }, undefined, 'invalid_request'],
    ['a scope beyond the application', { scope: 'financial:read' }, undefined, 'invalid_scope'],
    ['no session', {}, {}, 'access_denied'],
    [
      'a session signed with another secret',
      {},
      sessionFor(r1, 'another-secret-of-at-least-32-characters!'),
      'access_denied',
    ],
    [
      'a session of a restaurant the application is not installed for',
      {},
      sessionFor(r2, ctx.secrets.sessionSecret),
      'access_denied',
    ],
    ['a client that may not use the flow', { client_id: 'confidential' }, undefined, 'unauthorized_client'],
  ];
  for (const [what, extra, headers, error] of redirectCases) {
    await t.test(`${what} is redirected back with error=${error} and the state`, async () => {
      const params = redirected(await authorize(authorizeQuery(pkce().challenge, extra), headers));
      assert.equal(params.get('error'), error);
      assert.equal(params.get('state'), 'st-1');
      assert.equal(params.get('code'), null);
    });
  }
});

test("a reused refresh token of an application ends its tokens at that restaurant, not at the application's other restaurants", async (t) => {
  const { app, ctx } = await buildTestApp(t, { routes: protectedRoute });
  const [r1, r2] = await seedRestaurants(ctx.db, 2);
  await storeOAuthClient(ctx.db, {
    name: 'POS',
    restaurantIds: [r1, r2],
    redirectUris: [REDIRECT],
    scopes: ['menu:read'],
    clientId: 'pos-app',
    clientSecret: null,
    grantTypes: ['authorization_code'],
  });
  const tokensAt = async (restaurant: number) => {
    const { verifier, challenge } = pkce();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'pos-app',
      redirect_uri: REDIRECT,
      scope: 'menu:read',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const headers = sessionFor(restaurant, ctx.secrets.sessionSecret);
    const authorized = await app.inject({ url: `/oauth/authorize?${query}`, headers });
    const code = new URL(String(authorized.headers.location)).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: 'pos-app' };
    const res = await postToken(app, { ...form, code_verifier: verifier });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const refresh = (token: string) =>
    postToken(app, { grant_type: 'refresh_token', refresh_token: token, client_id: 'pos-app' });
  const call = async (token: string) =>
    (await app.inject({ url: '/v1/test/menu', headers: { authorization: `Bearer ${token}` } })).statusCode;

  const leaked = await tokensAt(r1);
  const sameRestaurant = await tokensAt(r1);
  const otherRestaurant = await tokensAt(r2);
  assert.equal((await refresh(leaked.refresh_token)).statusCode, 200);
  assert.equal((await refresh(leaked.refresh_token)).json().error, 'invalid_grant', 'the replay is reuse');

  assert.equal(await call(sameRestaurant.access_token), 401, "the application's tokens at r1 end");
  assert.equal(await call(otherRestaurant.access_token), 200, 'its installation at r2 keeps working');
  assert.equal((await refresh(otherRestaurant.refresh_token)).statusCode, 200);
});
