// Resource limits: body size, bulk size, URL and query length, many parameters, deeply nested
// JSON, and slow or silent clients on a real socket. Each is answered in the error model and
// the server keeps answering afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listeningApp, rawBody, rawExchange, rawHeader } from './listening.ts';
import { assertWellFormed, securityApp } from './setup.ts';

const LIMITS = { requestTimeoutMs: 1000, headersTimeoutMs: 500, idleTimeoutMs: 3000, checkIntervalMs: 100 };

test('limits enforced by Node on a real socket', async (t) => {
  const { port } = await listeningApp(t, LIMITS);
  const assertErrorModel = (answer: Awaited<ReturnType<typeof rawExchange>>, status: number, key: string) => {
    assert.equal(answer.status, status, answer.text);
    assert.deepEqual(Object.keys(rawBody(answer)).sort(), ['key', 'message', 'statusCode']);
    assert.equal(rawBody(answer).key, key);
    assert.match(String(rawHeader(answer, 'x-error-id')), /^[0-9a-f-]{36}$/);
    assert.equal(rawHeader(answer, 'x-content-type-options'), 'nosniff');
  };

  await t.test('a client dribbling its headers gets 408 request_timeout and is cut off in time', async () => {
    const bytes = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
    const answer = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', ...bytes], 100);
    assertErrorModel(answer, 408, 'request_timeout');
    assert.ok(answer.closedAfterMs < 1500, `closed after ${answer.closedAfterMs} ms`);
  });

  await t.test('a client dribbling its body gets 408 once the request timeout passes', async () => {
    const head =
      'POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 200\r\n\r\n';
    const answer = await rawExchange(port, [head, ...'grant_type=api_key&api_key=ck_test_'.split('')], 100);
    assertErrorModel(answer, 408, 'request_timeout');
    assert.ok(answer.closedAfterMs < 2000, `closed after ${answer.closedAfterMs} ms`);
  });

  await t.test('a connection that sends nothing is closed', async () => {
    const answer = await rawExchange(port, [], 0, 5000);
    assert.ok(answer.closedAfterMs < 1500, `closed after ${answer.closedAfterMs} ms`);
  });

  await t.test('a URL over 16 KiB is 431 headers_too_large', async () => {
    const answer = await rawExchange(port, [
      `GET /v1/menu?search=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]);
    assertErrorModel(answer, 431, 'headers_too_large');
  });

  await t.test('a request that is not HTTP is 400 malformed_request', async () => {
    assertErrorModel(await rawExchange(port, ['HELLO THERE\r\n\r\n']), 400, 'malformed_request');
  });

  await t.test('the server still answers after all of them', async () => {
    const answer = await rawExchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    assert.equal(answer.status, 200);
  });
});

test('limits enforced by the app', async (t) => {
  const { app, ids, auth } = await securityApp(t);
  const send = (method: 'PUT' | 'POST', url: string, payload: string) =>
    app.inject({
      method,
      url,
      payload,
      headers: { authorization: auth.all, 'content-type': 'application/json' },
    });

  await t.test('a body over 1 MiB is 413 payload_too_large', async () => {
    const res = await send('POST', '/v1/products', JSON.stringify({ name: 'x'.repeat(1024 * 1024) }));
    assertWellFormed(res, 'big body');
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().key, 'payload_too_large');
  });

  await t.test('a token request over 64 KiB is refused in the OAuth shape', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: `grant_type=api_key&api_key=${'x'.repeat(70_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assertWellFormed(res, 'big token request', true);
    assert.equal(res.statusCode, 400);
  });

  await t.test('a bulk of 101 objects is 400 and of 100 is accepted', async () => {
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ id: ids.a.products[i % 10], price: 1 }));
    const over = await send('PUT', '/v1/products/bulk', JSON.stringify(batch(101)));
    assertWellFormed(over, 'bulk 101');
    assert.equal(over.statusCode, 400);
    assert.equal(over.json().key, 'invalid_body');
    const empty = await send('PUT', '/v1/products/bulk', '[]');
    assert.equal(empty.statusCode, 400);
    const distinct = ids.a.products.map((id) => ({ id, price: 2 }));
    assert.equal((await send('PUT', '/v1/products/bulk', JSON.stringify(distinct))).statusCode, 200);
  });

  await t.test('a 10,000-deep array body is 400 on every write route, and nothing crashes', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    for (const [method, url] of [
      ['PUT', '/v1/products/bulk'],
      ['POST', '/v1/products'],
      ['PUT', `/v1/products/${ids.a.products[0]}`],
    ] as const) {
      const res = await send(method, url, deep);
      assertWellFormed(res, `deep ${url}`);
      assert.equal(res.statusCode, 400, res.body);
    }
  });

  await t.test('JSON nested to the body limit, with a __proto__ key inside, is 400 too', async () => {
    const depth = 400_000;
    const res = await send(
      'PUT',
      '/v1/products/bulk',
      `${'['.repeat(depth)}{"__proto__":{"x":1}}${']'.repeat(depth)}`,
    );
    assertWellFormed(res, 'deepest');
    assert.equal(res.statusCode, 400, res.body);
    const objects = `${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}`;
    const nested = await send('POST', '/v1/products', objects);
    assertWellFormed(nested, 'nested objects');
    assert.equal(nested.statusCode, 400, nested.body);
  });

  await t.test('a thousand query parameters are 400 invalid_query, quickly', async () => {
    const query = Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join('&');
    const started = Date.now();
    const res = await app.inject({ url: `/v1/menu?${query}`, headers: { authorization: auth.all } });
    assertWellFormed(res, 'many parameters');
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_query');
    const repeated = Array.from({ length: 1000 }, () => `restaurant_id=${ids.a.restaurant}`).join('&');
    const again = await app.inject({ url: `/v1/products?${repeated}`, headers: { authorization: auth.all } });
    assertWellFormed(again, 'repeated parameter');
    assert.equal(again.statusCode, 400);
    assert.ok(Date.now() - started < 2000);
  });

  await t.test(
    'a path parameter over 100 characters or badly percent-encoded is 400 invalid_parameter',
    async () => {
      const res = await app.inject({
        url: `/v1/products/${'9'.repeat(150)}`,
        headers: { authorization: auth.all },
      });
      assertWellFormed(res, 'long id');
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().key, 'invalid_parameter');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
      const bad = await app.inject({ url: '/v1/products/%E0%A4%A', headers: { authorization: auth.all } });
      assertWellFormed(bad, 'bad percent-encoding');
      assert.equal(bad.statusCode, 400);
    },
  );
});
