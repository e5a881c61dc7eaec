import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { addStaff, csrfOf, seedRestaurants, Visitor } from './support.ts';

test('every console form is protected against cross-site requests', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  await addStaff(ctx.db, 'bia@example.com', [bella]);
  const ana = new Visitor(app);
  await ana.signIn('ana@example.com');
  const csrf = csrfOf((await ana.get('/console/keys/new')).body);
  const form = { name: 'k', scopes: 'menu:read', restaurant_ids: String(bella), environment: 'live' };
  const keyCount = async () => (await ctx.db.selectFrom('api_keys').select('id').execute()).length;

  await t.test('a form with the session token from this origin is accepted', async () => {
    const res = await ana.post('/console/keys', { ...form, csrf });
    assert.equal(res.statusCode, 201);
  });

  await t.test('a form without a token, or with a wrong one, is refused with 403', async () => {
    const before = await keyCount();
    // One character changed in the middle: the last one may already be the replacement (the test
    // then sent the right token, 1 run in 64) or differ only in bits that base64url drops.
    const altered = `${csrf.slice(0, 10)}${csrf[10] === 'A' ? 'B' : 'A'}${csrf.slice(11)}`;
    for (const token of [undefined, 'forged', altered]) {
      const res = await ana.post('/console/keys', token === undefined ? form : { ...form, csrf: token });
      assert.equal(res.statusCode, 403, String(token));
      assert.match(res.body, /This form cannot be accepted/);
    }
    assert.equal(await keyCount(), before);
  });

  await t.test("another member's token does not fit this session", async () => {
    const bia = new Visitor(app);
    await bia.signIn('bia@example.com');
    const theirs = csrfOf((await bia.get('/console/keys')).body);
    assert.notEqual(theirs, csrf);
    assert.equal((await ana.post('/console/keys', { ...form, csrf: theirs })).statusCode, 403);
  });

  await t.test('the right token sent from another origin is refused', async () => {
    const before = await keyCount();
    for (const headers of [
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: undefined, referer: 'https://evil.example/page' },
    ]) {
      const res = await ana.post('/console/keys', { ...form, csrf }, headers);
      assert.equal(res.statusCode, 403, JSON.stringify(headers));
    }
    assert.equal(await keyCount(), before);
  });

  await t.test('sign-out and the sign-in form need their token too', async () => {
    assert.equal((await ana.post('/console/logout', {})).statusCode, 403);
    assert.equal((await ana.get('/console/keys')).statusCode, 200, 'still signed in');
    const stranger = new Visitor(app);
    const noCookie = await stranger.post('/console/login', {
      email: 'ana@example.com',
      password: 'x',
      csrf: 'y',
    });
    assert.equal(noCookie.statusCode, 403);
    await stranger.get('/console/login');
    const mismatch = await stranger.post('/console/login', {
      email: 'ana@example.com',
      password: 'x',
      csrf: 'y',
    });
    assert.equal(mismatch.statusCode, 403);
  });

  await t.test('a form posted as JSON is not accepted', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/console/keys',
      payload: { ...form, csrf },
      headers: { ...ana.cookieHeader(), origin: 'http://localhost:80' },
    });
    assert.equal(res.statusCode, 415);
    assert.match(String(res.headers['content-type']), /text\/html/);
  });

  await t.test('pages cannot be framed and load nothing from elsewhere', async () => {
    const res = await ana.get('/console/keys');
    assert.equal(res.headers['x-frame-options'], 'DENY');
    assert.match(
      String(res.headers['content-security-policy']),
      /default-src 'none'.*frame-ancestors 'none'/,
    );
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.doesNotMatch(res.body, /(src|href)="(https?:)?\/\//);
  });
});
