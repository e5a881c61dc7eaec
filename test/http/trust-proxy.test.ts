// TRUST_PROXY: X-Forwarded-Proto and X-Forwarded-For count only when the peer is a trusted proxy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { SIGN_IN_LIMITS } from '../../src/modules/console/sign-in-limiter.ts';
import { addStaff, csrfOf, PASSWORD, seedRestaurants } from '../modules/console/support.ts';
import { buildTestApp } from '../support/app.ts';

const PROXY = '10.1.2.3';
const STRANGER = '203.0.113.50';

/** A console sign-in as sent from `peer`, with whatever X-Forwarded-* headers it claims. */
async function signIn(
  app: FastifyInstance,
  peer: string,
  email: string,
  password: string,
  forwarded: Record<string, string> = {},
) {
  const page = await app.inject({ url: '/console/login', remoteAddress: peer, headers: forwarded });
  const login = /comanda_login=([^;]+)/.exec(String(page.headers['set-cookie']))![1];
  return app.inject({
    method: 'POST',
    url: '/console/login',
    remoteAddress: peer,
    payload: new URLSearchParams({ csrf: csrfOf(page.body), email, password }).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `comanda_login=${login}`,
      ...forwarded,
    },
  });
}

async function guessFrom(app: FastifyInstance, peer: string, forwardedFor: (i: number) => string) {
  return Promise.all(
    Array.from({ length: SIGN_IN_LIMITS.address }, (_, i) =>
      signIn(app, peer, `guess${i}@example.com`, 'not the password', {
        'x-forwarded-for': forwardedFor(i),
      }),
    ),
  );
}

test('TRUST_PROXY', async (t) => {
  const { app, ctx } = await buildTestApp(t, { config: { trustProxy: [`${PROXY}/32`] } });
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);

  await t.test('the console cookie is Secure behind a trusted proxy that says https', async () => {
    const res = await signIn(app, PROXY, 'ana@example.com', PASSWORD, {
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '198.51.100.7',
    });
    assert.equal(res.statusCode, 303, res.body);
    assert.match(String(res.headers['set-cookie']), /; SameSite=Strict; Secure$/);
  });

  await t.test('an untrusted peer claiming https gets no Secure cookie (it is plain http)', async () => {
    const res = await signIn(app, STRANGER, 'ana@example.com', PASSWORD, { 'x-forwarded-proto': 'https' });
    assert.equal(res.statusCode, 303, res.body);
    assert.match(String(res.headers['set-cookie']), /; SameSite=Strict$/);
  });

  await t.test('behind a trusted proxy the per-address limit counts each real client', async () => {
    const failures = await guessFrom(app, PROXY, () => '198.51.100.20');
    assert.ok(failures.every((res) => res.statusCode === 401));
    const blocked = await signIn(app, PROXY, 'ana@example.com', PASSWORD, {
      'x-forwarded-for': '198.51.100.20',
    });
    assert.equal(blocked.statusCode, 429, 'the guessing client is blocked');
    const other = await signIn(app, PROXY, 'ana@example.com', PASSWORD, {
      'x-forwarded-for': '198.51.100.21',
    });
    assert.equal(other.statusCode, 303, 'another client behind the same proxy is not');
  });

  await t.test('a forged X-Forwarded-For from an untrusted address changes nothing', async () => {
    const failures = await guessFrom(app, STRANGER, (i) => `192.0.2.${i + 1}`);
    assert.ok(failures.every((res) => res.statusCode === 401));
    const blocked = await signIn(app, STRANGER, 'ana@example.com', PASSWORD, {
      'x-forwarded-for': '192.0.2.200',
    });
    assert.equal(blocked.statusCode, 429, 'the stranger is counted by its own address');
  });
});

test('without TRUST_PROXY, X-Forwarded-* from any peer is ignored', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  const res = await signIn(app, PROXY, 'ana@example.com', PASSWORD, { 'x-forwarded-proto': 'https' });
  assert.equal(res.statusCode, 303, res.body);
  assert.doesNotMatch(String(res.headers['set-cookie']), /Secure/);
  const failures = await guessFrom(app, PROXY, (i) => `198.51.100.${i + 1}`);
  assert.ok(failures.every((r) => r.statusCode === 401));
  const blocked = await signIn(app, PROXY, 'ana@example.com', PASSWORD, {
    'x-forwarded-for': '198.51.100.99',
  });
  assert.equal(blocked.statusCode, 429);
});

test('TRUST_PROXY as a hop count trusts the nearest proxy, whatever its address', async (t) => {
  const { app, ctx } = await buildTestApp(t, { config: { trustProxy: 1 } });
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  const res = await signIn(app, STRANGER, 'ana@example.com', PASSWORD, { 'x-forwarded-proto': 'https' });
  assert.match(String(res.headers['set-cookie']), /; Secure$/);
  const failures = await guessFrom(app, PROXY, () => '198.51.100.30');
  assert.ok(failures.every((r) => r.statusCode === 401));
  const other = await signIn(app, PROXY, 'ana@example.com', PASSWORD, { 'x-forwarded-for': '198.51.100.31' });
  assert.equal(other.statusCode, 303, 'the client one hop out is who is counted');
});
