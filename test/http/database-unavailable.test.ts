// A database that cannot serve now (out of slots, a statement or lock past its budget, a
// connection lost) is 503 service_unavailable with Retry-After; the token endpoint says the same
// in OAuth's shape. Anything else the database raises stays a 500.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../support/app.ts';

const pgError = (code: string) => Object.assign(new Error(`database error ${code}`), { code });

const UNAVAILABLE = {
  '53300': 'too many connections',
  '53100': 'disk full',
  '57014': 'statement timeout',
  '55P03': 'lock timeout',
  '25P03': 'idle in transaction timeout',
  '40P01': 'deadlock detected',
  '40001': 'serialization failure',
  '57P01': 'administrator shutdown',
  '08006': 'connection failure',
};

function routes(app: FastifyInstance) {
  app.get('/test/db-error/:code', async (request) => {
    throw pgError((request.params as { code: string }).code);
  });
}

test('a database that cannot serve now', async (t) => {
  const { app, ctx } = await buildTestApp(t, { routes });

  for (const [code, what] of Object.entries(UNAVAILABLE)) {
    await t.test(`${what} (SQLSTATE ${code}) is 503 service_unavailable with Retry-After`, async () => {
      const res = await app.inject({ url: `/test/db-error/${code}` });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().key, 'service_unavailable');
      assert.ok(Number(res.headers['retry-after']) >= 1);
    });
  }

  await t.test('a constraint violation (SQLSTATE 23505) stays a 500 internal_error', async () => {
    const res = await app.inject({ url: '/test/db-error/23505' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().key, 'internal_error');
  });

  await t.test("the token endpoint answers a failing database in OAuth's shape", async () => {
    await ctx.database.close();
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=api_key&api_key=ck_test_anything',
    });
    assert.ok(res.statusCode >= 500, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'error_description']);
    assert.match(res.json().error, /^(server_error|temporarily_unavailable)$/);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.ok(res.headers['x-error-id']);
  });
});
