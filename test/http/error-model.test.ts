import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../src/http/errors.ts';
import { buildTestApp, echoRoute } from '../support/app.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function testRoutes(app: FastifyInstance) {
  echoRoute(app);
  app.get('/test/boom', async () => {
    throw new Error('password=hunter2 at /srv/internal/file.ts:12');
  });
  app.get('/test/known', async () => {
    throw errors.productNotFound();
  });
}

test('the error model', async (t) => {
  const { app } = await buildTestApp(t, { routes: testRoutes });
  const post = (payload: string, contentType = 'application/json') =>
    app.inject({ method: 'POST', url: '/test/echo', payload, headers: { 'content-type': contentType } });

  await t.test(
    'an unknown route is 404 route_not_found with {statusCode, message, key} and an X-Error-Id',
    async () => {
      const res = await app.inject({ method: 'GET', url: '/v1/nothing-here?secret=1' });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(Object.keys(res.json()).sort(), ['key', 'message', 'statusCode']);
      assert.equal(res.json().key, 'route_not_found');
      assert.equal(res.json().statusCode, 404);
      assert.doesNotMatch(res.json().message, /secret/);
      assert.match(String(res.headers['x-error-id']), UUID);
    },
  );

  await t.test('every error gets its own X-Error-Id', async () => {
    const a = await app.inject({ method: 'GET', url: '/nope' });
    const b = await app.inject({ method: 'GET', url: '/nope' });
    assert.notEqual(a.headers['x-error-id'], b.headers['x-error-id']);
  });

  await t.test('a catalogue error keeps its status, key and message', async () => {
    const res = await app.inject({ method: 'GET', url: '/test/known' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), {
      statusCode: 404,
      message: 'Product not found.',
      key: 'product_not_found',
    });
  });

  await t.test('a 500 never reveals internals and asks to contact support with the X-Error-Id', async () => {
    const res = await app.inject({ method: 'GET', url: '/test/boom' });
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().key, 'internal_error');
    assert.doesNotMatch(res.body, /hunter2|\/srv|file\.ts/);
    assert.match(res.json().message, /X-Error-Id/);
  });

  await t.test('malformed JSON is 400 invalid_body', async () => {
    const res = await post('{"price": 1,');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_body');
  });

  await t.test('a wrong content type is 400 invalid_body', async () => {
    const res = await post('price=1', 'text/plain');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_body');
  });

  await t.test('an unknown field is 400 invalid_body naming the field', async () => {
    const res = await post(JSON.stringify({ price: 1, colour: 'red' }));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_body');
    assert.deepEqual(res.json().errors, [{ field: 'colour', message: 'is not an accepted field' }]);
  });

  await t.test('a number sent as a string is rejected, never coerced', async () => {
    const res = await post(JSON.stringify({ price: '12.50' }));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].field, 'price');
  });

  await t.test('a body over 1 MiB is 413', async () => {
    const res = await post(JSON.stringify({ price: 1, name: 'x'.repeat(1024 * 1024) }));
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().key, 'payload_too_large');
    assert.ok(res.headers['x-error-id']);
  });
});
