import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setSessionCookie } from '../../../src/modules/console/console-session.ts';
import { SIGN_IN_LIMITS } from '../../../src/modules/console/sign-in-limiter.ts';
import { buildTestApp } from '../../support/app.ts';
import { addStaff, csrfOf, PASSWORD, seedRestaurants, Visitor } from './support.ts';

test('console sign-in and sign-out', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella, kai, other] = await seedRestaurants(ctx.db, ['Cantina Bella', 'Sushi Kai', 'Outro']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  await addStaff(ctx.db, 'bia@example.com', [bella, kai]);

  await t.test('a signed-out visitor of a console page is sent to sign in and comes back', async () => {
    const visitor = new Visitor(app);
    const res = await visitor.get('/console/keys');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/console/login?next=%2Fconsole%2Fkeys');
    const signedIn = await visitor.signIn('ana@example.com', PASSWORD, '/console/apps');
    assert.equal(signedIn.headers.location, '/console/apps');
  });

  await t.test(
    'signing in sets an HttpOnly, SameSite=Strict session cookie (no Secure over http)',
    async () => {
      const visitor = new Visitor(app);
      const res = await visitor.signIn('ANA@example.com ');
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/console/keys');
      const cookie = String(res.headers['set-cookie']);
      assert.match(
        cookie,
        /^comanda_console=[\w-]+\.[\w-]+\.[\w-]+; Path=\/; Max-Age=28800; HttpOnly; SameSite=Strict$/,
      );
      const keys = await visitor.get('/console/keys');
      assert.equal(keys.statusCode, 200);
      assert.match(keys.body, /Cantina Bella/);
    },
  );

  await t.test('the cookie is Secure when the request came over HTTPS', () => {
    const headers: Record<string, string> = {};
    const reply = {
      header: (name: string, value: string) => (headers[name] = value),
    } as unknown as FastifyReply;
    setSessionCookie({ protocol: 'https' } as FastifyRequest, reply, 'token');
    assert.match(headers['set-cookie'], /; HttpOnly; SameSite=Strict; Secure$/);
  });

  await t.test(
    'the cookie carries a restaurant session that the API accepts for that restaurant',
    async () => {
      const visitor = new Visitor(app);
      await visitor.signIn('ana@example.com');
      const token = visitor.cookies.get('comanda_console')!;
      const res = await app.inject({ url: '/v1/menu', headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().restaurant_id, bella);
    },
  );

  await t.test('a wrong password or an unknown email is refused alike, without a session', async () => {
    for (const [email, password] of [
      ['ana@example.com', 'wrong password!'],
      ['nobody@example.com', PASSWORD],
    ]) {
      const visitor = new Visitor(app);
      const res = await visitor.signIn(email, password);
      assert.equal(res.statusCode, 401);
      assert.match(res.body, /The email or the password is not right\./);
      assert.ok(!visitor.cookies.has('comanda_console'));
      assert.match(res.body, new RegExp(`value="${email}"`), 'the email is kept in the form');
    }
  });

  await t.test('a member of several restaurants picks one after sign-in and can switch', async () => {
    const visitor = new Visitor(app);
    const res = await visitor.signIn('bia@example.com', PASSWORD, '/console/apps');
    assert.equal(res.headers.location, '/console/restaurant?next=%2Fconsole%2Fapps');
    const picked = await visitor.submit(res.headers.location!, '/console/restaurant', {
      restaurant_id: String(kai),
      next: '/console/apps',
    });
    assert.equal(picked.headers.location, '/console/apps');
    assert.match((await visitor.get('/console/apps')).body, /class="restaurant"[^>]*>Sushi Kai</);
    const foreign = await visitor.submit('/console/restaurant', '/console/restaurant', {
      restaurant_id: String(other),
    });
    assert.equal(foreign.statusCode, 400);
    assert.match((await visitor.get('/console/keys')).body, /class="restaurant"[^>]*>Sushi Kai</);
  });

  await t.test('signing out ends the session: the old cookie opens nothing', async () => {
    const visitor = new Visitor(app);
    await visitor.signIn('ana@example.com');
    const cookie = visitor.cookieHeader();
    const csrf = csrfOf((await visitor.get('/console/keys')).body);
    const out = await visitor.post('/console/logout', { csrf });
    assert.equal(out.headers.location, '/console/login?signed_out=1');
    assert.match(String(out.headers['set-cookie']), /comanda_console=; Path=\/; Max-Age=0/);
    const replay = await app.inject({ url: '/console/keys', headers: cookie });
    assert.equal(replay.statusCode, 303);
    assert.match(String(replay.headers.location), /^\/console\/login/);
  });

  await t.test('a tampered cookie is no session', async () => {
    const visitor = new Visitor(app);
    await visitor.signIn('ana@example.com');
    const token = visitor.cookies.get('comanda_console')!;
    // One character changed in the middle (the last ones may already be the replacement, or differ
    // only in bits that base64url drops).
    let i = token.length >> 1;
    while (!/[A-Za-z0-9]/.test(token[i])) i++;
    visitor.cookies.set(
      'comanda_console',
      `${token.slice(0, i)}${token[i] === 'A' ? 'B' : 'A'}${token.slice(i + 1)}`,
    );
    assert.equal((await visitor.get('/console/keys')).statusCode, 303);
  });

  await t.test('next never leads to another site', async () => {
    const dotted = ['/console/../v1/menu', '/console/%2e%2e/docs', '/oauth/authorize/../../v1/menu?x'];
    for (const next of [
      'https://evil.example/',
      '//evil.example/x',
      '/\\evil.example',
      '/v1/menu',
      ...dotted,
    ]) {
      const res = await new Visitor(app).signIn('ana@example.com', PASSWORD, next);
      assert.equal(res.headers.location, '/console/keys', next);
    }
  });

  await t.test('an email holding a NUL character is a wrong sign-in, not a 500', async () => {
    for (const email of ['ana@example.com\u0000', 'a\u0000@example.com']) {
      const res = await new Visitor(app).signIn(email);
      assert.equal(res.statusCode, 401, JSON.stringify(email));
      assert.match(res.body, /The email or the password is not right\./);
    }
  });

  await t.test('a next holding a control or non-ASCII character leads home, never to a 500', async () => {
    for (const next of ['/console/\u0001', '/console/apps\u007f', '/console/\u0101', '/console/\u00e9']) {
      const res = await new Visitor(app).signIn('ana@example.com', PASSWORD, next);
      assert.equal(res.statusCode, 303, JSON.stringify(next));
      assert.equal(res.headers.location, '/console/keys', JSON.stringify(next));
    }
    const visitor = new Visitor(app);
    await visitor.signIn('ana@example.com');
    const signedIn = await visitor.get('/console/login?next=%2Fconsole%2F%C4%81');
    assert.equal(signedIn.statusCode, 303);
    assert.equal(signedIn.headers.location, '/console/keys');
  });

  await t.test('failed sign-ins are limited per account, even for the right password', async () => {
    await addStaff(ctx.db, 'caio@example.com', [bella]);
    const visitor = new Visitor(app);
    for (let i = 0; i < SIGN_IN_LIMITS.account; i++) {
      assert.equal((await visitor.signIn('caio@example.com', 'not the password')).statusCode, 401);
    }
    const blocked = await visitor.signIn('caio@example.com');
    assert.equal(blocked.statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) > 800);
    assert.match(blocked.body, /Too many failed sign-ins/);
    assert.ok(!visitor.cookies.has('comanda_console'));
    assert.equal((await visitor.signIn('ana@example.com')).statusCode, 303, 'another account still signs in');
  });

  await t.test('failed sign-ins are limited per address, whatever the account', async () => {
    const remote = { remoteAddress: '203.0.113.9' };
    const attempt = async (email: string, password: string) => {
      const visitor = new Visitor(app);
      const page = await app.inject({ url: '/console/login', ...remote });
      visitor.cookies.set(
        'comanda_login',
        /comanda_login=([^;]+)/.exec(String(page.headers['set-cookie']))![1],
      );
      const form = { csrf: csrfOf(page.body), email, password };
      return app.inject({
        method: 'POST',
        url: '/console/login',
        payload: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...visitor.cookieHeader() },
        ...remote,
      });
    };
    const failures = await Promise.all(
      Array.from({ length: SIGN_IN_LIMITS.address }, (_, i) =>
        attempt(`guess${i}@example.com`, 'nope nope nope'),
      ),
    );
    assert.ok(failures.every((res) => res.statusCode === 401));
    assert.equal((await attempt('ana@example.com', PASSWORD)).statusCode, 429);
    assert.equal(
      (await new Visitor(app).signIn('ana@example.com')).statusCode,
      303,
      'other addresses are not blocked',
    );
  });

  await t.test('failed sign-ins from one IPv6 /64 share one address budget', async () => {
    const host = (i: number) => new Visitor(app, `2001:db8:77:1:${i.toString(16)}::1`);
    const failures = await Promise.all(
      Array.from({ length: SIGN_IN_LIMITS.address }, (_, i) =>
        host(i).signIn(`v6guess${i}@example.com`, 'nope nope nope'),
      ),
    );
    assert.ok(failures.every((res) => res.statusCode === 401));
    assert.equal((await host(999).signIn('ana@example.com')).statusCode, 429, 'a new host of the /64');
    const neighbour = new Visitor(app, '2001:db8:77:2::1');
    assert.equal((await neighbour.signIn('ana@example.com')).statusCode, 303, 'another /64 signs in');
  });

  await t.test(
    'right passwords and attempts refused by the limit leave the address budget as it was',
    async () => {
      await addStaff(ctx.db, 'dora@example.com', [bella]);
      await addStaff(ctx.db, 'edu@example.com', [bella]);
      const address = '203.0.113.77';
      for (let i = 0; i <= SIGN_IN_LIMITS.address; i++) {
        assert.equal((await new Visitor(app, address).signIn('dora@example.com')).statusCode, 303);
      }
      for (let i = 0; i < SIGN_IN_LIMITS.account; i++) {
        assert.equal(
          (await new Visitor(app, address).signIn('edu@example.com', 'not it at all')).statusCode,
          401,
        );
      }
      for (let i = 0; i < SIGN_IN_LIMITS.address; i++) {
        assert.equal((await new Visitor(app, address).signIn('edu@example.com')).statusCode, 429);
      }
      const other = await new Visitor(app, address).signIn('dora@example.com', 'not it at all');
      assert.equal(other.statusCode, 401, 'the address has spent only its failures');
    },
  );
});
