// Security headers on every response: successes, errors, 404s, the token endpoint, health,
// the OpenAPI document, the reference page and the console (which keeps its own policy).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { API_POLICY, DOCS_POLICY } from '../../src/http/security-headers.ts';
import { ROUTES } from './routes.ts';
import { securityApp } from './setup.ts';

const form = { 'content-type': 'application/x-www-form-urlencoded' };

test('security headers', async (t) => {
  const { app, ids, auth } = await securityApp(t);
  const everyAnswer: [string, InjectOptions][] = [
    ...ROUTES.map((r): [string, InjectOptions] => [
      r.name,
      { ...r.request(ids), headers: { authorization: auth.all } },
    ]),
    ...ROUTES.map((r): [string, InjectOptions] => [`${r.name} without a token`, r.request(ids)]),
    ['a validation error', { url: '/v1/menu?channel=moon', headers: { authorization: auth.all } }],
    ['an unknown /v1 route', { url: '/v1/nothing' }],
    ['an unknown route', { url: '/nothing' }],
    [
      'a token exchange',
      {
        method: 'POST',
        url: '/oauth/token',
        payload: `grant_type=api_key&api_key=${ids.a.apiKey}`,
        headers: form,
      },
    ],
    ['a token error', { method: 'POST', url: '/oauth/token', payload: 'grant_type=nope', headers: form }],
    ['/healthz', { url: '/healthz' }],
    ['/readyz', { url: '/readyz' }],
    ['/openapi.json', { url: '/openapi.json' }],
    ['/docs/', { url: '/docs/' }],
    ['/console/login', { url: '/console/login' }],
  ];

  await t.test('every answer carries nosniff, a referrer policy, DENY framing and a CSP', async () => {
    for (const [name, request] of everyAnswer) {
      const res = await app.inject(request);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', name);
      assert.equal(res.headers['x-frame-options'], 'DENY', name);
      assert.match(String(res.headers['referrer-policy']), /^(no-referrer|same-origin)$/, name);
      assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, name);
    }
  });

  await t.test('JSON answers get the strict policy and the no-referrer policy', async () => {
    for (const [name, request] of everyAnswer.filter(([n]) => !/docs|console/.test(n))) {
      const res = await app.inject(request);
      assert.match(String(res.headers['content-type']), /^application\/json/, name);
      assert.equal(res.headers['content-security-policy'], API_POLICY, name);
      assert.equal(res.headers['referrer-policy'], 'no-referrer', name);
    }
  });

  await t.test('every /v1 and /oauth answer, success or error, is Cache-Control: no-store', async () => {
    for (const [name, request] of everyAnswer.filter(([, r]) => /^\/(v1|oauth)\//.test(String(r.url)))) {
      const res = await app.inject(request);
      assert.equal(res.headers['cache-control'], 'no-store', name);
    }
  });

  await t.test(
    'the reference page gets the policy its inline start-up script needs, nothing wider',
    async () => {
      const res = await app.inject({ url: '/docs/' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-security-policy'], DOCS_POLICY);
      assert.doesNotMatch(DOCS_POLICY, /https?:|\*/);
    },
  );

  await t.test("the console's pages keep their own policy and referrer policy", async () => {
    const res = await app.inject({ url: '/console/login' });
    assert.match(
      String(res.headers['content-security-policy']),
      /script-src 'self'; img-src 'self'; form-action/,
    );
    assert.equal(res.headers['referrer-policy'], 'same-origin');
  });
});
