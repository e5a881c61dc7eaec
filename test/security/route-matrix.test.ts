// Every data route against every way in that must fail: each refused credential (401), the
// missing scope (403), another restaurant (403), and each of restaurant B's ids, which must be
// answered exactly like an id that never existed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { ID_CASES, ROUTES } from './routes.ts';
import { assertWellFormed, securityApp } from './setup.ts';

const NEVER_EXISTED = 2_000_000_001;

test('the route matrix', async (t) => {
  const { app, ids, auth, refused, otherSession } = await securityApp(t);
  const call = (options: InjectOptions, authorization: string) =>
    app.inject({ ...options, headers: { ...options.headers, ...(authorization ? { authorization } : {}) } });
  const withQuery = (url: string, extra: string) => `${url}${url.includes('?') ? '&' : '?'}${extra}`;

  for (const route of ROUTES) {
    await t.test(
      `${route.name}: the valid request of restaurant A succeeds (the matrix tests something)`,
      async () => {
        const res = await call(route.request(ids), auth.all);
        assertWellFormed(res, route.name);
        assert.ok(res.statusCode === 200 || res.statusCode === 201, `${res.statusCode} ${res.body}`);
      },
    );

    await t.test(`${route.name}: each refused credential is 401 invalid_token`, async () => {
      for (const [kind, authorization] of Object.entries(refused)) {
        const res = await call(route.request(ids), authorization);
        assertWellFormed(res, `${route.name} with ${kind}`);
        assert.equal(res.statusCode, 401, `${kind}: ${res.body}`);
        assert.equal(res.json().key, 'invalid_token', kind);
        assert.match(String(res.headers['www-authenticate']), /^Bearer/, kind);
      }
    });

    await t.test(`${route.name}: a credential in the URL is refused even beside a valid header`, async () => {
      const request = route.request(ids);
      const res = await call({ ...request, url: withQuery(String(request.url), 'access_token=x') }, auth.all);
      assert.equal(res.statusCode, 401);
    });

    await t.test(`${route.name}: a token without ${route.scope} is 403 insufficient_scope`, async () => {
      const res = await call(route.request(ids), await auth.without(route.scope));
      assertWellFormed(res, route.name);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().key, 'insufficient_scope');
    });

    await t.test(
      `${route.name}: restaurant B through restaurant_id is 403, for a token and a session`,
      async () => {
        const request = route.request(ids);
        const url = withQuery(String(request.url), `restaurant_id=${ids.b.restaurant}`);
        for (const authorization of [auth.all, auth.session]) {
          const res = await call({ ...request, url }, authorization);
          assertWellFormed(res, route.name);
          assert.equal(res.statusCode, 403);
          assert.equal(res.json().key, 'restaurant_forbidden');
        }
        const crossed = withQuery(String(request.url), `restaurant_id=${ids.a.restaurant}`);
        const res = await call({ ...request, url: crossed }, otherSession);
        assert.equal(res.statusCode, 403);
      },
    );
  }

  for (const idCase of ID_CASES) {
    await t.test(`${idCase.name}: B's id is answered exactly like an id that never existed`, async () => {
      const other = await call(idCase.request(idCase.otherId(ids), ids), auth.all);
      const never = await call(idCase.request(NEVER_EXISTED, ids), auth.all);
      assertWellFormed(other, idCase.name);
      assert.equal(other.statusCode, never.statusCode, other.body);
      const normalise = (body: string) =>
        body.replaceAll(String(idCase.otherId(ids)), 'ID').replaceAll(String(NEVER_EXISTED), 'ID');
      const stable = (body: string) => normalise(body).replace(/"evaluated_at":"[^"]+"/, '');
      assert.equal(stable(other.body), stable(never.body));
      if (other.statusCode >= 400) assert.equal(other.statusCode, 404, other.body);
    });
  }

  await t.test("restaurant B's data is unchanged by everything above", async () => {
    const session = otherSession;
    const res = await call({ url: '/v1/products' }, session);
    const products = res
      .json()
      .flatMap((c: { products: { description: string; price: string }[] }) => c.products);
    assert.equal(products.length, ids.b.products.length);
    for (const p of products) assert.match(p.description, /^Description ZZ/);
  });
});
