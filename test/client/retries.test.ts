import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test } from 'node:test';
import { inspect } from 'node:util';
import { ComandaClient, ComandaError, maskSecrets, TokenManager } from '../../src/client/index.ts';
import { apiError, hangUp, json, ok, type Script, scriptedServer, silent, stallBody } from './support.ts';

const PAGE = { total: 0, count: 0, remaining: 0, limit: 100, offset: 0, cash_flows: [] };
const PRODUCT = { id: 7, name: 'Margherita' };
const FAST = { retries: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterSeconds: 5 };
const json201 =
  (body: unknown): Script =>
  (_q, res) =>
    json(res, 201, body);

/** A client on a scripted server with a fixed token that counts its invalidations. */
async function setup(
  t: Parameters<typeof scriptedServer>[0],
  scripts: Record<string, Script[]>,
  options: { timeoutMs?: number } = {},
) {
  const server = await scriptedServer(t, scripts);
  const invalidated: string[] = [];
  let version = 0;
  const tokens = {
    getAccessToken: async () => `cat_token${version}`,
    invalidate: (token: string) => {
      invalidated.push(token);
      version += 1;
    },
  };
  const client = new ComandaClient({ baseUrl: server.baseUrl, tokens, retry: FAST, ...options });
  const count = (path: string) => server.received.filter((r) => r.path === path).length;
  return { ...server, client, invalidated, count };
}

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => assert.fail('expected a ComandaError'),
    (error: unknown) => {
      assert.ok(error instanceof ComandaError, String(error));
      return error;
    },
  );

const query = { start_date: '2026-01-01', end_date: '2026-01-31' };

test('a read waits Retry-After on 429 and then succeeds', async (t) => {
  const s = await setup(t, {
    '/v1/financial/cash-flows': [apiError(429, 'rate_limited', { 'retry-after': '1' }), ok(PAGE)],
  });
  const page = await s.client.listCashFlows(query);
  assert.equal(page.limit, 100);
  assert.equal(s.count('/v1/financial/cash-flows'), 2);
  const [first, second] = s.received;
  assert.ok(second.at - first.at >= 950, `waited ${second.at - first.at} ms`);
});

test('a read is retried on 502 and 503 with backoff, at most `retries` times', async (t) => {
  const s = await setup(t, {
    '/v1/menu': [apiError(502, 'bad_gateway'), apiError(503, 'service_unavailable'), ok({ categories: [] })],
    '/v1/products/7': [apiError(503, 'service_unavailable')],
  });
  assert.deepEqual(await s.client.getMenu(), { categories: [] });
  assert.equal(s.count('/v1/menu'), 3);
  const error = await caught(s.client.getProduct(7));
  assert.deepEqual(
    [error.status, error.key, error.errorId],
    [503, 'service_unavailable', 'id-service_unavailable'],
  );
  assert.equal(s.count('/v1/products/7'), 4, 'the first attempt and 3 retries');
});

test('a Retry-After beyond the bound is not waited for: the 429 is thrown with its retryAfter', async (t) => {
  const s = await setup(t, { '/v1/menu': [apiError(429, 'rate_limited', { 'retry-after': '3600' })] });
  const error = await caught(s.client.getMenu());
  assert.deepEqual([error.status, error.key, error.retryAfter], [429, 'rate_limited', 3600]);
  assert.equal(s.count('/v1/menu'), 1);
});

test('a write carries an Idempotency-Key and is retried with the same key on 429, 502 and 503', async (t) => {
  const s = await setup(t, {
    '/v1/products': [apiError(429, 'rate_limited', { 'retry-after': '1' }), json201(PRODUCT)],
    '/v1/products/7': [apiError(503, 'service_unavailable'), ok(PRODUCT)],
    '/v1/products/bulk': [apiError(409, 'product_update_conflict')],
    '/v1/products/7/availability': [apiError(502, 'bad_gateway'), ok(PRODUCT)],
  });
  assert.deepEqual(await s.client.createProduct({ name: 'X', product_category_id: 1, price: 10 }), PRODUCT);
  assert.deepEqual(await s.client.editProduct(7, { price: 12 }), PRODUCT);
  assert.deepEqual(await s.client.setAvailability(7, { available: false }), PRODUCT);
  for (const path of ['/v1/products', '/v1/products/7', '/v1/products/7/availability']) {
    const keys = s.received.filter((r) => r.path === path).map((r) => r.headers['idempotency-key']);
    assert.equal(keys.length, 2, path);
    assert.match(String(keys[0]), /^[0-9a-f-]{36}$/, `${path}: a UUID by default`);
    assert.equal(keys[1], keys[0], `${path}: the retry sends the same key`);
  }
  assert.equal(
    (await caught(s.client.bulkEditProducts([{ id: 7, price: 12 }]))).key,
    'product_update_conflict',
    'a 409 is an answer, not a failure to retry',
  );
  assert.equal(s.count('/v1/products/bulk'), 1);
});

test("a write answered 409 idempotency_key_in_use (its key's first request still runs) waits Retry-After and is sent again with that key", async (t) => {
  const s = await setup(t, {
    '/v1/products/7': [hangUp, apiError(409, 'idempotency_key_in_use', { 'retry-after': '1' }), ok(PRODUCT)],
    '/v1/products/8': [apiError(409, 'product_update_conflict', { 'retry-after': '1' })],
  });
  assert.deepEqual(await s.client.editProduct(7, { price: 12 }), PRODUCT);
  const sent = s.received.filter((r) => r.path === '/v1/products/7');
  assert.equal(sent.length, 3);
  assert.equal(new Set(sent.map((r) => r.headers['idempotency-key'])).size, 1, 'one key throughout');
  assert.ok(sent[2].at - sent[1].at >= 950, `waited ${sent[2].at - sent[1].at} ms`);
  assert.equal((await caught(s.client.editProduct(8, { price: 12 }))).key, 'product_update_conflict');
  assert.equal(s.count('/v1/products/8'), 1, 'another 409 is an answer, not a failure to retry');
});

test('a write keeps the key given by the caller, and two calls get two keys', async (t) => {
  const s = await setup(t, { '/v1/products/7': [ok(PRODUCT), ok(PRODUCT), ok(PRODUCT)] });
  await s.client.editProduct(7, { price: 1 }, { idempotencyKey: 'order-42-price' });
  await s.client.editProduct(7, { price: 1 });
  await s.client.editProduct(7, { price: 1 });
  const [given, a, b] = s.received.map((r) => r.headers['idempotency-key']);
  assert.equal(given, 'order-42-price');
  assert.notEqual(a, b);
});

test('a lost answer is retried, a write with its key; a write never answered names its key', async (t) => {
  const s = await setup(t, {
    '/v1/products/7': [hangUp, ok(PRODUCT)],
    '/v1/products': [hangUp, hangUp, hangUp, hangUp],
  });
  assert.deepEqual(await s.client.getProduct(7), PRODUCT);
  assert.equal(s.count('/v1/products/7'), 2);
  const error = await caught(s.client.createProduct({ name: 'X', product_category_id: 1, price: 10 }));
  assert.deepEqual([error.status, error.key], [0, 'outcome_unknown']);
  const key = s.received.find((r) => r.path === '/v1/products')!.headers['idempotency-key'];
  assert.match(error.message, new RegExp(`may or may not have been applied.*idempotencyKey: '${key}'`));
  assert.equal(s.count('/v1/products'), 4, 'the first attempt and 3 retries, all with one key');
});

test('a call refused with 401 is sent once more with a new token, a write with its key', async (t) => {
  const s = await setup(t, {
    '/v1/menu': [apiError(401, 'invalid_token'), ok({ categories: [] })],
    '/v1/products/7': [apiError(401, 'invalid_token'), ok(PRODUCT)],
  });
  await s.client.getMenu();
  assert.deepEqual(s.invalidated, ['cat_token0']);
  assert.equal(s.count('/v1/menu'), 2);
  assert.deepEqual(await s.client.editProduct(7, { price: 1 }), PRODUCT);
  const [first, second] = s.received.filter((r) => r.path === '/v1/products/7');
  assert.equal(first.headers.authorization, 'Bearer cat_token1');
  assert.equal(second.headers.authorization, 'Bearer cat_token2');
  assert.equal(second.headers['idempotency-key'], first.headers['idempotency-key']);
  assert.deepEqual(s.invalidated, ['cat_token0', 'cat_token1'], 'the refused token is dropped');
});

test('restaurantId goes to the query string, per client and per call', async (t) => {
  const s = await setup(t, { '/v1/products/7': [ok(PRODUCT)], '/v1/menu': [ok({})] });
  const tokens = { getAccessToken: async () => 'cat_x' };
  const client = new ComandaClient({ baseUrl: s.baseUrl, tokens, restaurantId: 3 });
  await client.getProduct(7);
  await client.getProduct(7, { restaurantId: 9 });
  await client.getMenu({ channel: 'delivery', only_available: true });
  assert.deepEqual(
    s.received.map((r) => r.search),
    ['?restaurant_id=3', '?restaurant_id=9', '?channel=delivery&only_available=true&restaurant_id=3'],
  );
});

test('getMe() sends no restaurant_id, even from a client with a default restaurant', async (t) => {
  const s = await setup(t, { '/v1/me': [ok({})] });
  const tokens = { getAccessToken: async () => 'cat_x' };
  const client = new ComandaClient({ baseUrl: s.baseUrl, tokens, restaurantId: 3 });
  await client.getMe({ restaurantId: 9 });
  await client.getMe();
  assert.deepEqual(
    s.received.map((r) => r.search),
    ['', ''],
  );
});

/** A token answer of the scripted token endpoint. */
const issued =
  (n: number): Script =>
  (_q, res) =>
    json(res, 200, {
      access_token: `cat_a${n}`,
      token_type: 'Bearer',
      expires_in: 900,
      refresh_token: `crt_r${n}`,
      scope: 'x',
    });

/** The manager of a scripted token endpoint, starting from a persisted refresh token. */
async function persistedManager(t: Parameters<typeof scriptedServer>[0], scripts: Script[]) {
  const server = await scriptedServer(t, { '/oauth/token': scripts });
  const tokens = new TokenManager({
    baseUrl: server.baseUrl,
    apiKey: 'ck_test_key',
    refreshToken: 'crt_persisted',
  });
  const form = (name: string) => server.received.map((r) => new URLSearchParams(r.body).get(name));
  return { tokens, form };
}

test('a refresh without an answer is never sent again: the manager exchanges the API key instead', async (t) => {
  const { tokens, form } = await persistedManager(t, [hangUp, issued(2)]);
  assert.equal(await tokens.getAccessToken(), 'cat_a2');
  assert.deepEqual(form('grant_type'), ['refresh_token', 'api_key']);
  assert.deepEqual(form('refresh_token'), ['crt_persisted', null]);
});

test('a refresh answered 429 is retried after Retry-After with the same, unconsumed, token', async (t) => {
  const limited: Script = (_q, res) =>
    json(res, 429, { error: 'rate_limited', error_description: 'Too many.' }, { 'retry-after': '1' });
  const { tokens, form } = await persistedManager(t, [limited, issued(3)]);
  assert.equal(await tokens.getAccessToken(), 'cat_a3');
  assert.deepEqual(form('refresh_token'), ['crt_persisted', 'crt_persisted']);
});

test('a failure carrying a secret in its text is masked in the ComandaError', async () => {
  const leaky: typeof fetch = async () => {
    throw new Error('socket closed while sending Bearer cat_Zx9secretsecret and ck_live_abcdSECRETSECRET');
  };
  const client = new ComandaClient({
    baseUrl: 'http://127.0.0.1:9',
    tokens: { getAccessToken: async () => 'cat_Zx9secretsecret' },
    fetch: leaky,
    retry: { retries: 0 },
  });
  const error = await caught(client.createProduct({ name: 'X', product_category_id: 1, price: 1 }));
  assert.equal(error.key, 'outcome_unknown');
  assert.doesNotMatch(error.message, /secretsecret|SECRETSECRET/);
  assert.match(error.message, /Bearer \*\*\* .*ck_live_abcd…/);
  assert.equal(maskSecrets('crt_1234567890 cac_abcdefgh'), 'crt_1234… cac_abcd…');
});

test('a secret in the platform error a ComandaError keeps as its cause is masked there too, as an inspection or a logger shows it', async () => {
  // The platform's own fetch names a header value it refuses, here the whole Authorization header.
  const client = new ComandaClient({
    baseUrl: 'http://127.0.0.1:9',
    tokens: { getAccessToken: async () => 'cat_Zx9secretsecret\nrest' },
    retry: { retries: 0 },
  });
  const error = await caught(client.getProduct(7));
  assert.equal(error.key, 'network_error');
  assert.match(String((error.cause as Error).message), /Bearer \*\*\*/);
  assert.doesNotMatch(inspect(error), /secretsecret/);
  const leaky = new ComandaClient({
    baseUrl: 'http://127.0.0.1:9',
    tokens: { getAccessToken: async () => 'cat_Zx9secretsecret' },
    fetch: async () => {
      throw new Error('lost', { cause: new Error('socket closed while sending Bearer cat_Zx9secretsecret') });
    },
    retry: { retries: 0 },
  });
  const nested = await caught(leaky.getProduct(7));
  assert.doesNotMatch(inspect(nested), /secretsecret/);
  assert.match(inspect(nested), /socket closed while sending Bearer \*\*\*/);
});

test('a webhook-endpoint POST (which the server does not apply once per key) carries no Idempotency-Key and is not sent again once it may have arrived', async (t) => {
  const ENDPOINT = { id: 3, url: 'https://erp.example/hook', secret: 'whsec_x' };
  const s = await setup(t, {
    '/v1/webhook-endpoints': [hangUp, json201(ENDPOINT)],
    '/v1/webhook-endpoints/3/rotate-secret': [apiError(502, 'bad_gateway'), ok(ENDPOINT)],
    '/v1/webhook-endpoints/3/test': [apiError(503, 'service_unavailable'), ok({})],
    '/v1/webhook-endpoints/4/test': [apiError(429, 'rate_limited', { 'retry-after': '0' }), ok({})],
  });
  const lost = await caught(
    s.client.createWebhookEndpoint({ url: ENDPOINT.url, events: ['product.updated'] }),
  );
  assert.deepEqual([lost.status, lost.key], [0, 'outcome_unknown']);
  assert.match(lost.message, /Re-read before sending it again/);
  assert.equal(s.count('/v1/webhook-endpoints'), 1, 'a second POST would create a second endpoint');
  assert.equal((await caught(s.client.rotateWebhookSecret(3))).status, 502);
  assert.equal(s.count('/v1/webhook-endpoints/3/rotate-secret'), 1);
  assert.equal((await caught(s.client.testWebhookEndpoint(3))).status, 503);
  assert.equal(s.count('/v1/webhook-endpoints/3/test'), 1);
  assert.deepEqual(await s.client.testWebhookEndpoint(4), {}, 'a 429 is answered before the write runs');
  assert.equal(s.count('/v1/webhook-endpoints/4/test'), 2);
  for (const sent of s.received) assert.equal(sent.headers['idempotency-key'], undefined, sent.path);
});

test('a timeout while the body is read is a ComandaError shaped like one before the headers, and retried alike', async (t) => {
  const s = await setup(
    t,
    {
      '/v1/products/7': [stallBody(200), ok(PRODUCT)],
      '/v1/products/8': [silent],
      '/v1/products/9': [stallBody(200)],
      '/v1/products/10': [stallBody(404)],
    },
    { timeoutMs: 150 },
  );
  assert.deepEqual(await s.client.getProduct(7), PRODUCT, 'a read whose body timed out is sent again');
  assert.equal(s.count('/v1/products/7'), 2);
  const headers = await caught(s.client.getProduct(8));
  const body = await caught(s.client.getProduct(9));
  const errorBody = await caught(s.client.getProduct(10));
  for (const [error, path] of [
    [headers, '/v1/products/8'],
    [body, '/v1/products/9'],
    [errorBody, '/v1/products/10'],
  ] as const) {
    assert.deepEqual([error.status, error.key], [0, 'timeout'], path);
    assert.match(error.message, new RegExp(`^GET ${path}: no answer \\(.+\\)\\.$`));
    assert.equal((error.cause as Error).name, 'TimeoutError', path);
    assert.equal(s.count(path), 4, `${path}: the first attempt and 3 retries`);
  }
});

test('a write whose answer body times out is retried with its key; a webhook POST is not sent again', async (t) => {
  const s = await setup(
    t,
    {
      '/v1/products/7': [stallBody(200), ok(PRODUCT)],
      '/v1/products': [stallBody(201)],
      '/v1/webhook-endpoints': [stallBody(201)],
    },
    { timeoutMs: 150 },
  );
  assert.deepEqual(await s.client.editProduct(7, { price: 1 }), PRODUCT);
  const [first, second] = s.received.filter((r) => r.path === '/v1/products/7');
  assert.equal(second.headers['idempotency-key'], first.headers['idempotency-key']);
  const keyed = await caught(s.client.createProduct({ name: 'X', product_category_id: 1, price: 10 }));
  assert.deepEqual([keyed.status, keyed.key], [0, 'outcome_unknown']);
  const key = s.received.find((r) => r.path === '/v1/products')!.headers['idempotency-key'];
  assert.match(keyed.message, new RegExp(`idempotencyKey: '${key}'`));
  assert.equal(s.count('/v1/products'), 4);
  const unkeyed = await caught(s.client.createWebhookEndpoint({ url: 'https://erp.example/h', events: [] }));
  assert.deepEqual([unkeyed.status, unkeyed.key], [0, 'outcome_unknown']);
  assert.match(unkeyed.message, /Re-read before sending it again/);
  assert.equal(s.count('/v1/webhook-endpoints'), 1);
});

test("a caller's abort while the body is read rejects with the caller's reason, as before the headers", async (t) => {
  const s = await setup(t, { '/v1/products/7': [silent], '/v1/products/8': [stallBody(200)] });
  for (const path of ['/v1/products/7', '/v1/products/8']) {
    const reason = new Error(`stop ${path}`);
    const controller = new AbortController();
    setTimeout(() => controller.abort(reason), 100);
    const id = Number(path.split('/').pop());
    await assert.rejects(s.client.getProduct(id, { signal: controller.signal }), (error) => error === reason);
    assert.equal(s.count(path), 1);
  }
});

test("a caller's long-lived signal holds no listener after its calls, however many retry pauses they took", async (t) => {
  const s = await setup(t, {
    '/v1/menu': [
      apiError(503, 'service_unavailable'),
      apiError(429, 'rate_limited', { 'retry-after': '0' }),
      ok({}),
    ],
  });
  const controller = new AbortController();
  await s.client.getMenu({}, { signal: controller.signal });
  assert.equal(s.count('/v1/menu'), 3);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
});

test('a retry policy field given as undefined keeps its default: a read without an answer is not sent forever', async () => {
  const stop = new AbortController();
  let attempts = 0;
  const client = new ComandaClient({
    baseUrl: 'http://127.0.0.1:9',
    tokens: { getAccessToken: async () => 'cat_token' },
    fetch: async () => {
      attempts += 1;
      if (attempts === 20) stop.abort(new Error('still sending'));
      throw new TypeError('fetch failed');
    },
    retry: { retries: undefined, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterSeconds: undefined },
  });
  const error = await caught(client.getProduct(7, { signal: stop.signal }));
  assert.equal(error.key, 'network_error');
  assert.equal(attempts, 4, 'the first attempt and the default 3 retries');
});

test('a token answer whose body times out is a ComandaError timeout, retried like a lost one', async (t) => {
  const server = await scriptedServer(t, { '/oauth/token': [stallBody(200), issued(1)] });
  const tokens = new TokenManager({ baseUrl: server.baseUrl, apiKey: 'ck_test_key', timeoutMs: 150 });
  assert.equal(await tokens.getAccessToken(), 'cat_a1');
  assert.equal(server.received.length, 2);
  const stalled = await scriptedServer(t, { '/oauth/token': [stallBody(200)] });
  const failing = new TokenManager({ baseUrl: stalled.baseUrl, apiKey: 'ck_test_key', timeoutMs: 150 });
  const error = await caught(failing.getAccessToken());
  assert.deepEqual([error.status, error.key], [0, 'timeout']);
});

test('listEvents and historyEntries stop with a ComandaError when the server hands back a cursor already followed, instead of reading forever', async (t) => {
  const event = (n: number) => ({
    id: `evt_${n}`,
    type: 'product.updated',
    restaurant_id: 1,
    created_at: '',
    data: { n },
  });
  const entry = (n: number) => ({ id: n });
  const s = await setup(t, {
    // has_more with the same cursor again (a server fault): the same page would be read forever.
    '/v1/events': [
      ok({ data: [event(1)], next_cursor: 'c1', has_more: true }),
      ok({ data: [event(2)], next_cursor: 'c1', has_more: true }),
      ok({ data: [event(3)], next_cursor: 'c3', has_more: false }),
    ],
    '/v1/products/7/history': [
      ok({ items: [entry(1)], next_cursor: 'h1' }),
      ok({ items: [entry(2)], next_cursor: 'h1' }),
      ok({ items: [entry(3)], next_cursor: null }),
    ],
  });
  const seen: unknown[] = [];
  const repeated = await caught(
    (async () => {
      for await (const page of s.client.listEvents()) seen.push(...page.data.map((e) => e.data.n));
    })(),
  );
  assert.equal(repeated.key, 'unexpected_response');
  assert.match(repeated.message, /next_cursor/);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(s.count('/v1/events'), 2);
  const history: unknown[] = [];
  const looped = await caught(
    (async () => {
      for await (const item of s.client.historyEntries(7)) history.push(item);
    })(),
  );
  assert.equal(looped.key, 'unexpected_response');
  assert.deepEqual(history, [entry(1), entry(2)]);
  assert.equal(s.count('/v1/products/7/history'), 2);
});

test('listEvents stops with a ComandaError on has_more without a next_cursor, instead of starting over from the beginning', async (t) => {
  const s = await setup(t, {
    '/v1/events': [
      ok({ data: [], next_cursor: null, has_more: true }),
      ok({ data: [], next_cursor: 'c', has_more: false }),
    ],
  });
  const error = await caught(
    (async () => {
      for await (const _ of s.client.listEvents({ after: 'c0' })) {
      }
    })(),
  );
  assert.equal(error.key, 'unexpected_response');
  assert.deepEqual(
    s.received.map((r) => r.search),
    ['?after=c0'],
  );
});

test("a caller's signal also bounds the wait for a token: an abort while the token endpoint stalls rejects at once, and an aborted signal sends nothing", async (t) => {
  const server = await scriptedServer(t, { '/oauth/token': [silent, issued(1)], '/v1/menu': [ok({})] });
  const client = new ComandaClient({ baseUrl: server.baseUrl, apiKey: 'ck_test_key', timeoutMs: 1_000 });
  const reason = new Error('the caller gave up');
  const controller = new AbortController();
  setTimeout(() => controller.abort(reason), 100);
  await assert.rejects(
    client.getMenu({}, { signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
  assert.equal(server.received.length, 0, 'an aborted call sends nothing, not even a token exchange');
  const started = Date.now();
  await assert.rejects(client.getMenu({}, { signal: controller.signal }), (error) => error === reason);
  assert.ok(Date.now() - started < 500, `rejected after ${Date.now() - started} ms`);
  const before = server.received.length;
  await assert.rejects(
    client.getMenu({}, { signal: AbortSignal.abort(reason) }),
    (error) => error === reason,
  );
  assert.equal(server.received.length, before, 'an aborted call sends nothing');
  // The shared exchange goes on for the other callers: the next call gets its token.
  assert.deepEqual(await client.getMenu(), {});
});

test('a gzip body that is corrupt or cut short is an error naming the answer and the decoding failure, not "no answer"', async (t) => {
  const { gzipSync } = await import('node:zlib');
  const whole = gzipSync(JSON.stringify(PRODUCT));
  const gzipped =
    (body: Buffer, length?: number): Script =>
    (_q, res) => {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
      };
      if (length !== undefined) headers['content-length'] = String(length);
      res.writeHead(200, headers);
      res.end(body);
    };
  const corrupt = Buffer.from(whole);
  corrupt[12] ^= 0xff;
  const s = await setup(t, {
    '/v1/products/7': [gzipped(corrupt, corrupt.length)],
    '/v1/products/8': [gzipped(whole.subarray(0, whole.length - 10))],
  });
  const broken = await caught(s.client.getProduct(7));
  assert.deepEqual([broken.status, broken.key], [0, 'network_error']);
  assert.match(
    broken.message,
    /^GET \/v1\/products\/7: the 200 answer's body could not be read \(.+: .+\)\.$/,
  );
  assert.doesNotMatch(broken.message, /no answer/, broken.message);
  assert.equal(s.count('/v1/products/7'), 4, 'a read is sent again, as after a lost answer');
  const cut = await caught(s.client.getProduct(8));
  assert.deepEqual([cut.status, cut.key], [200, 'unexpected_response']);
  assert.match(cut.message, /not JSON/);
});
