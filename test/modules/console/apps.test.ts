import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { storeOAuthClient } from '../../../src/modules/auth/oauth-clients.ts';
import { buildTestApp } from '../../support/app.ts';
import { sessionFor } from '../../support/tokens.ts';
import { postToken } from '../auth/support.ts';
import { addPublicApp, addStaff, csrfOf, REDIRECT, seedRestaurants, Visitor } from './support.ts';

test('installed apps in the console', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella, kai] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sushi Kai']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  const pos = await addPublicApp(ctx.db, 'pos-app', 'Balcão POS', [bella, kai]);
  const erp = await storeOAuthClient(ctx.db, {
    clientId: 'erp',
    clientSecret: 'erp-secret',
    name: '<script>alert("erp")</script>',
    scopes: ['financial:read'],
    grantTypes: ['client_credentials'],
    restaurantIds: [bella, kai],
  });
  const ana = new Visitor(app);
  await ana.signIn('ana@example.com');

  /** Tokens of pos-app for one restaurant, through the API side of /oauth/authorize. */
  async function posTokens(restaurantId: number) {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'pos-app',
      redirect_uri: REDIRECT,
      scope: 'menu:read',
      state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const res = await app.inject({
      url: `/oauth/authorize?${query}`,
      headers: sessionFor(restaurantId, ctx.secrets.sessionSecret),
    });
    const code = new URL(String(res.headers.location)).searchParams.get('code');
    assert.ok(code, String(res.headers.location));
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: 'pos-app',
      code_verifier: verifier,
    };
    return (await postToken(app, form)).json() as { access_token: string; refresh_token: string };
  }
  const call = (token: string, restaurantId: number) =>
    app.inject({
      url: `/v1/menu?restaurant_id=${restaurantId}`,
      headers: { authorization: `Bearer ${token}` },
    });
  const refresh = (token: string) =>
    postToken(app, { grant_type: 'refresh_token', refresh_token: token, client_id: 'pos-app' });

  const atBella = await posTokens(bella);
  const atKai = await posTokens(kai);
  const erpToken = (
    await postToken(
      app,
      { grant_type: 'client_credentials', scope: 'financial:read' },
      {
        authorization: `Basic ${Buffer.from('erp:erp-secret').toString('base64')}`,
      },
    )
  ).json().access_token as string;

  await t.test('lists the applications installed for the restaurant, with scopes and last use', async () => {
    const res = await ana.get('/console/apps');
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes('Balcão POS'));
    assert.ok(res.body.includes('Installed by the operator'));
    assert.ok(res.body.includes('<span class="tag">products:read</span><span class="tag">menu:read</span>'));
    assert.match(res.body, /data-label="Last used"><div><time datetime="20/);
  });

  await t.test('an application name is escaped, never run', async () => {
    const body = (await ana.get('/console/apps')).body;
    assert.ok(body.includes('&lt;script&gt;alert(&quot;erp&quot;)&lt;/script&gt;'));
    assert.ok(!body.includes('<script>alert'));
  });

  await t.test('removing asks first, then refuses its tokens for this restaurant only', async () => {
    const confirm = await ana.get(`/console/apps/${pos.id}/revoke`);
    assert.match(confirm.body, /Remove Balcão POS\?/);
    assert.equal((await call(atBella.access_token, bella)).statusCode, 200);
    const done = await ana.post(`/console/apps/${pos.id}/revoke`, { csrf: csrfOf(confirm.body) });
    assert.equal(done.headers.location, `/console/apps?removed=${pos.id}`);
    assert.equal((await call(atBella.access_token, bella)).statusCode, 401);
    assert.equal((await refresh(atBella.refresh_token)).json().error, 'invalid_grant');
    assert.equal((await call(atKai.access_token, kai)).statusCode, 200, 'Sushi Kai keeps its installation');
    assert.equal((await refresh(atKai.refresh_token)).statusCode, 200);
    const listed = (await ana.get('/console/apps?removed=1')).body;
    assert.ok(!listed.includes('Balcão POS'));
    assert.ok(listed.includes('The application was removed'));
  });

  await t.test(
    'a removed application cannot come back through the API side of /oauth/authorize',
    async () => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: 'pos-app',
        redirect_uri: REDIRECT,
        state: 's',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
      const res = await app.inject({
        url: `/oauth/authorize?${query}`,
        headers: sessionFor(bella, ctx.secrets.sessionSecret),
      });
      assert.equal(new URL(String(res.headers.location)).searchParams.get('error'), 'access_denied');
    },
  );

  await t.test(
    'removing a client-credentials application ends its tokens that cover the restaurant',
    async () => {
      assert.equal((await call(erpToken, bella)).statusCode, 403, 'a financial token reads no menu');
      const csrf = csrfOf((await ana.get(`/console/apps/${erp.id}/revoke`)).body);
      assert.equal((await ana.post(`/console/apps/${erp.id}/revoke`, { csrf })).statusCode, 303);
      assert.equal((await call(erpToken, bella)).statusCode, 401);
      const fresh = await postToken(
        app,
        { grant_type: 'client_credentials' },
        {
          authorization: `Basic ${Buffer.from('erp:erp-secret').toString('base64')}`,
        },
      );
      const anotherCall = await app.inject({
        url: `/v1/financial/cash-flows?restaurant_id=${bella}&start_date=2026-01-01&end_date=2026-01-31`,
        headers: { authorization: `Bearer ${fresh.json().access_token}` },
      });
      assert.equal(anotherCall.statusCode, 403, 'new tokens no longer cover Cantina Bella');
    },
  );

  await t.test('an application not installed here cannot be removed', async () => {
    assert.equal((await ana.get(`/console/apps/${pos.id}/revoke`)).statusCode, 404);
    const csrf = csrfOf((await ana.get('/console/apps')).body);
    assert.equal((await ana.post(`/console/apps/${pos.id}/revoke`, { csrf })).statusCode, 404);
    const installed = await ctx.db
      .selectFrom('oauth_client_restaurants')
      .select('restaurant_id')
      .where('oauth_client_id', '=', pos.id)
      .execute();
    assert.deepEqual(
      installed.map((r) => r.restaurant_id),
      [kai],
    );
  });
});
