import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { postToken } from '../auth/support.ts';
import { addPublicApp, addStaff, csrfOf, PASSWORD, REDIRECT, seedRestaurants, Visitor } from './support.ts';

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(challenge: string, extra: Record<string, string> = {}) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'pos-app',
    redirect_uri: REDIRECT,
    scope: 'menu:read',
    state: 'st-7',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `/oauth/authorize?${query}`;
}

const redirected = (location: unknown) => {
  const url = new URL(String(location));
  assert.equal(`${url.origin}${url.pathname}`, REDIRECT);
  return url.searchParams;
};

test('the consent page of /oauth/authorize', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella, kai] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sushi Kai']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  await addStaff(ctx.db, 'bia@example.com', [bella, kai]);
  await addPublicApp(ctx.db, 'pos-app', 'Balcão POS');
  await addPublicApp(ctx.db, 'evil-app', '<script>alert("pwned")</script>');
  const ana = new Visitor(app);
  await ana.signIn('ana@example.com');
  const answer = async (visitor: Visitor, url: string, decision: string) => {
    const page = await visitor.get(url);
    assert.equal(page.statusCode, 200, page.body);
    const fields = Object.fromEntries(
      [...page.body.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((m) => [
        m[1],
        m[2].replace(/&amp;/g, '&'),
      ]),
    );
    return visitor.post('/console/authorize', { ...fields, decision });
  };

  await t.test('shows the application, each scope in plain words and the restaurant', async () => {
    const res = await ana.get(authorizeUrl(pkce().challenge, { scope: 'menu:read products:read' }));
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.body.includes('Allow Balcão POS to use Cantina Bella?'));
    assert.ok(
      res.body.includes('See your menu with the price and availability of each product in each channel.'),
    );
    assert.ok(res.body.includes('See your products and categories, with their prices and fiscal data.'));
    assert.ok(res.body.includes('https://pos.example'));
    assert.match(
      String(res.headers['content-security-policy']),
      /form-action 'self' https:\/\/pos\.example;/,
    );
    assert.equal(res.headers['x-frame-options'], 'DENY');
  });

  await t.test(
    'approving redirects with code and state; the code gives tokens for that restaurant',
    async () => {
      const { verifier, challenge } = pkce();
      const res = await answer(ana, authorizeUrl(challenge), 'allow');
      assert.equal(res.statusCode, 303);
      const params = redirected(res.headers.location);
      assert.equal(params.get('state'), 'st-7');
      const tokens = await postToken(app, {
        grant_type: 'authorization_code',
        code: params.get('code')!,
        redirect_uri: REDIRECT,
        client_id: 'pos-app',
        code_verifier: verifier,
      });
      assert.equal(tokens.statusCode, 200, tokens.body);
      assert.equal(tokens.json().scope, 'menu:read');
      const menu = await app.inject({
        url: '/v1/menu',
        headers: { authorization: `Bearer ${tokens.json().access_token}` },
      });
      assert.equal(menu.json().restaurant_id, bella);
    },
  );

  await t.test('approving installs the application, recording who approved which scopes', async () => {
    const body = (await ana.get('/console/apps')).body;
    assert.ok(body.includes('Balcão POS'));
    assert.match(body, /Approved <time[^>]*>.*<\/time> by ana@example.com/);
    assert.ok(body.includes('<span class="tag">menu:read</span></div>'));
  });

  await t.test('denying redirects with error=access_denied and the state, and installs nothing', async () => {
    await addPublicApp(ctx.db, 'other-app', 'Other');
    const res = await answer(ana, authorizeUrl(pkce().challenge, { client_id: 'other-app' }), 'deny');
    const params = redirected(res.headers.location);
    assert.equal(params.get('error'), 'access_denied');
    assert.equal(params.get('state'), 'st-7');
    assert.equal(params.get('code'), null);
    assert.ok(!(await ana.get('/console/apps')).body.includes('Other'));
  });

  await t.test('a signed-out visitor goes through sign-in and comes back to the same request', async () => {
    const visitor = new Visitor(app);
    const url = authorizeUrl(pkce().challenge);
    const hop = await visitor.get(url);
    assert.equal(hop.statusCode, 200);
    const login = `/console/login?${new URLSearchParams({ next: url })}`;
    assert.ok(
      hop.body.includes(`<meta http-equiv="refresh" content="0;url=${login.replace(/&/g, '&amp;')}">`),
    );
    const signedIn = await visitor.signIn('ana@example.com', PASSWORD, url);
    assert.equal(signedIn.headers.location, url);
    assert.ok((await visitor.get(url)).body.includes('Allow Balcão POS'));
    const already = await visitor.get(login);
    assert.equal(already.headers.location, url, 'signed in already: straight back');
  });

  await t.test('a member of several restaurants can approve for another one', async () => {
    const bia = new Visitor(app);
    const url = authorizeUrl(pkce().challenge);
    const res = await bia.signIn('bia@example.com', PASSWORD, url);
    await bia.submit(String(res.headers.location), '/console/restaurant', {
      restaurant_id: String(kai),
      next: url,
    });
    const page = await bia.get(url);
    assert.ok(page.body.includes('Allow Balcão POS to use Sushi Kai?'));
    assert.ok(page.body.includes('Use another restaurant'));
    const approved = await answer(bia, url, 'allow');
    const code = redirected(approved.headers.location).get('code')!;
    const row = await ctx.db
      .selectFrom('authorization_codes')
      .select('restaurant_id')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    assert.equal(row.restaurant_id, kai);
    assert.ok(code);
  });

  await t.test('an unknown client or redirect URI is shown as an error page, never redirected', async () => {
    const cases: Record<string, string>[] = [
      { client_id: 'nobody' },
      { redirect_uri: 'https://evil.example/cb' },
    ];
    for (const extra of cases) {
      const res = await ana.get(authorizeUrl(pkce().challenge, extra));
      assert.equal(res.statusCode, 400);
      assert.equal(res.headers.location, undefined);
      assert.match(res.body, /This link cannot be used/);
    }
  });

  await t.test('a request without S256 PKCE goes back with invalid_request and the state', async () => {
    const res = await ana.get(authorizeUrl('plain-challenge', { code_challenge_method: 'plain' }));
    assert.equal(res.statusCode, 303);
    const params = redirected(res.headers.location);
    assert.equal(params.get('error'), 'invalid_request');
    assert.equal(params.get('state'), 'st-7');
  });

  await t.test('the answer needs the CSRF token, and a changed redirect URI is refused', async () => {
    const url = authorizeUrl(pkce().challenge);
    const page = await ana.get(url);
    const noToken = await ana.post('/console/authorize', { client_id: 'pos-app', decision: 'allow' });
    assert.equal(noToken.statusCode, 403);
    const fields = {
      response_type: 'code',
      client_id: 'pos-app',
      redirect_uri: 'https://evil.example/cb',
      state: 's',
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      decision: 'allow',
    };
    const changed = await ana.post('/console/authorize', { ...fields, csrf: csrfOf(page.body) });
    assert.equal(changed.statusCode, 400);
    assert.equal(changed.headers.location, undefined);
  });

  await t.test('a hostile application name is escaped on the consent page', async () => {
    const res = await ana.get(authorizeUrl(pkce().challenge, { client_id: 'evil-app' }));
    assert.equal(res.statusCode, 200);
    assert.ok(
      res.body.includes('Allow &lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt; to use Cantina Bella?'),
    );
    assert.ok(!res.body.includes('<script>alert'));
  });

  await t.test('API callers without a session keep the redirect with access_denied', async () => {
    const res = await app.inject({ url: authorizeUrl(pkce().challenge) });
    assert.equal(res.statusCode, 302);
    assert.equal(redirected(res.headers.location).get('error'), 'access_denied');
  });

  await t.test('a member holding a one-time password chooses a password before consenting', async () => {
    const created = await addStaff(ctx.db, 'caio@example.com', [bella], null);
    const caio = new Visitor(app);
    const url = authorizeUrl(pkce().challenge);
    await caio.signIn('caio@example.com', created.one_time_password!, url);
    const res = await caio.get(url);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/console/password?${new URLSearchParams({ next: url })}`);
  });
});
