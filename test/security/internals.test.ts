// When the database fails with an error full of internals (SQL text, a relation name, a stack
// with file paths), every route answers the generic 500 of the error model and the client sees
// none of it; a connection error is a 503 with Retry-After.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROUTES } from './routes.ts';
import { assertWellFormed, securityApp } from './setup.ts';

const LEAKY = Object.assign(
  new Error(
    'relation "products" does not exist: select "id", "cost" from "products" where "restaurant_id" = $1',
  ),
  {
    code: '42P01',
    stack:
      'error: relation "products" does not exist\n    at Parser.parseErrorMessage (/work/main/node_modules/pg-protocol/dist/parser.js:287:98)',
  },
);

test('database failures never reach the client', async (t) => {
  // A session needs no database to authenticate, so each route reaches its own queries.
  const { app, ids, auth, ctx } = await securityApp(t);
  const executor = ctx.db.getExecutor();

  await t.test('an error carrying SQL and a stack is a bare 500 internal_error on every route', async () => {
    const mock = t.mock.method(executor, 'provideConnection', async () => {
      throw LEAKY;
    });
    for (const route of ROUTES) {
      const res = await app.inject({ ...route.request(ids), headers: { authorization: auth.session } });
      assert.equal(res.statusCode, 500, `${route.name}: ${res.body}`);
      assert.equal(res.json().key, 'internal_error');
      assert.doesNotMatch(
        res.body,
        /relation|select|products"|restaurant_id|parser|node_modules|42P01/i,
        route.name,
      );
      assert.match(res.json().message, /X-Error-Id/);
    }
    mock.mock.restore();
  });

  await t.test('a lost connection is a 503 service_unavailable with Retry-After on every route', async () => {
    const mock = t.mock.method(executor, 'provideConnection', async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
    });
    for (const route of ROUTES) {
      const res = await app.inject({ ...route.request(ids), headers: { authorization: auth.session } });
      assertWellFormed(res, route.name);
      assert.equal(res.statusCode, 503, `${route.name}: ${res.body}`);
      assert.equal(res.json().key, 'service_unavailable');
      assert.equal(res.headers['retry-after'], '1');
      assert.doesNotMatch(res.body, /10\.0\.0\.7|ECONNREFUSED/);
    }
    mock.mock.restore();
  });

  await t.test('afterwards every route answers again', async () => {
    for (const route of ROUTES) {
      const res = await app.inject({ ...route.request(ids), headers: { authorization: auth.session } });
      assert.ok(res.statusCode < 300, `${route.name}: ${res.body}`);
    }
  });
});
