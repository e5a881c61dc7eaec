// Property-based tests over every route's body, path and query: whatever arrives, the answer is
// never a 500, always in the error model (the token endpoint: RFC 6749's), never carries data of
// the other restaurant, and restaurant B's rows are never written. FUZZ_RUNS sets the runs per
// property (100 here; `npm run fuzz` runs many more), FUZZ_SECONDS bounds each property's time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { encryptSecret } from '../../src/lib/encryption.ts';
import { EVENT_TYPES } from '../../src/modules/events/event-types.ts';
import { insertEndpoint } from '../../src/modules/webhooks/endpoint-repository.ts';
import { newSecret } from '../../src/modules/webhooks/signer.ts';
import {
  bodyOf,
  date,
  hostileText,
  hostileValue,
  instant,
  pathId,
  productBody,
  queryOf,
} from './arbitraries.ts';
import { assertWellFormed, securityApp } from './setup.ts';
import { OTHER_MARKER } from './world.ts';

/** Any JSON value as header text: String() throws on objects such as {"toString": 1}. */
const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

const RUNS = Number(process.env.FUZZ_RUNS || 100);
const SECONDS = Number(process.env.FUZZ_SECONDS || 0);
const PARAMETERS: fc.Parameters<unknown> = {
  numRuns: RUNS,
  ...(SECONDS ? { interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false } : {}),
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
};

test('hostile input, property by property', async (t) => {
  const { app, ids, auth, ctx } = await securityApp(t);
  const restaurantB = new RegExp(`"restaurant_id":${ids.b.restaurant}\\b`);
  const rowsOfB = () =>
    ctx.db
      .selectFrom('products')
      .selectAll()
      .where('restaurant_id', '=', ids.b.restaurant)
      .orderBy('id')
      .execute();
  const before = await rowsOfB();
  const statuses = new Map<string, number>();

  const check = async (request: InjectOptions, oauth = false) => {
    const res = await app.inject(request);
    const route = `${request.method ?? 'GET'} ${String(request.url)
      .split('?')[0]
      .replace(/\/(products|info|webhook-endpoints)\/(?!bulk$)[^/]+/, '/$1/:id')} ${res.statusCode}`;
    statuses.set(route, (statuses.get(route) ?? 0) + 1);
    assertWellFormed(
      res,
      `${request.method ?? 'GET'} ${request.url} ${String(request.payload ?? '').slice(0, 300)}`,
      oauth,
    );
    assert.doesNotMatch(res.body, restaurantB, 'a restaurant_id of B in an answer');
    return res;
  };
  const json = (method: 'POST' | 'PUT' | 'PATCH', url: string, payload: string): InjectOptions => ({
    method,
    url,
    payload,
    headers: { authorization: auth.all, 'content-type': 'application/json' },
  });
  const get = (url: string): InjectOptions => ({ url, headers: { authorization: auth.all } });
  const property = async <T>(
    name: string,
    arbitrary: fc.Arbitrary<T>,
    run: (value: T) => Promise<unknown>,
    /** Valid requests run first: every property reaches its route's success for sure. */
    examples: T[] = [],
  ) => {
    await t.test(name, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (value) => {
          await run(value);
        }),
        { ...(PARAMETERS as fc.Parameters<[T]>), examples: examples.map((e): [T] => [e]) },
      );
    });
  };

  const flag = fc.constantFrom('true', 'false');
  await property(
    'GET /v1/menu with any query',
    queryOf({
      channel: fc.constantFrom('in_store', 'delivery'),
      only_available: flag,
      include_fiscal_info: flag,
      category_id: fc.constantFrom(String(ids.a.category), String(ids.b.category)),
      search: hostileText,
      at: instant,
      restaurant_id: fc.constantFrom(String(ids.a.restaurant), String(ids.b.restaurant)),
    }),
    (query) => check(get(`/v1/menu?${query}`)),
    ['channel=delivery&only_available=true'],
  );

  await property(
    'GET /v1/financial/cash-flows with any query',
    queryOf(
      {
        start_date: fc.oneof(fc.constant('2026-03-01'), date),
        end_date: fc.oneof(fc.constant('2026-03-31'), date),
        date_type: fc.constantFrom('due_date', 'competence_date'),
        offset: fc.nat().map(String),
        paid: flag,
        is_earning: flag,
        provider_id: fc.constantFrom(String(ids.a.supplier), String(ids.b.supplier)),
        category_subcategory_id: fc.constantFrom(String(ids.a.costCentre), String(ids.b.costCentre)),
        bank_account_id: fc.nat().map(String),
        payment_method_id: fc.nat().map(String),
      },
      ['start_date', 'end_date'],
    ),
    (query) => check(get(`/v1/financial/cash-flows?${query}`)),
    ['start_date=2026-03-01&end_date=2026-03-31'],
  );

  await property(
    'GET /v1/nfe-received with any query',
    queryOf(
      {
        start_date: fc.oneof(fc.constant('2026-01-01T00:00:00Z'), instant),
        end_date: fc.oneof(fc.constant('2026-01-31T23:59:59-03:00'), instant),
        pendente: fc.constantFrom('true', 'false', 'TRUE', ''),
        brand_id: fc.constantFrom(String(ids.a.brand), String(ids.b.brand), '01', '1e3'),
      },
      ['start_date', 'end_date'],
    ),
    (query) => check(get(`/v1/nfe-received?${query}`)),
    ['start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T23:59:59Z'],
  );

  const mine = { restaurant_id: fc.constant(String(ids.a.restaurant)) };
  await property(
    'GET one product, its history and an NF-e detail with any id and query',
    fc.oneof(
      fc.tuple(pathId(ids), queryOf(mine)).map(([id, q]) => `/v1/products/${id}?${q}`),
      fc
        .tuple(pathId(ids), queryOf({ ...mine, limit: fc.nat(120).map(String), cursor: hostileText }))
        .map(([id, q]) => `/v1/products/${id}/history?${q}`),
      fc.tuple(pathId(ids), queryOf(mine)).map(([id, q]) => `/v1/nfe-received/info/${id}?${q}`),
    ),
    (url) => check(get(url)),
    [
      `/v1/products/${ids.a.products[0]}`,
      `/v1/products/${ids.a.products[0]}/history`,
      `/v1/nfe-received/info/${ids.a.nfe}`,
    ],
  );

  await property(
    'GET /v1/products with any query',
    queryOf({ restaurant_id: fc.constant(String(ids.a.restaurant)) }),
    (query) => check(get(`/v1/products?${query}`)),
    [''],
  );

  const CREATE = [
    'name',
    'product_category_id',
    'price',
    'description',
    'price_promotion',
    'delivery_price',
    'available',
    'sold_off',
    'use_weight',
  ];
  const created = productBody(ids, { keys: CREATE, required: ['name', 'product_category_id', 'price'] });
  await property(
    'POST /v1/products with any body',
    bodyOf(created),
    (body) => check(json('POST', '/v1/products', body)),
    [JSON.stringify({ name: 'Example', product_category_id: ids.a.category, price: 12.5 })],
  );

  await property(
    'PUT /v1/products/{id} with any id, body and dry_run',
    fc.tuple(pathId(ids), bodyOf(productBody(ids)), fc.constantFrom('', '?dry_run=true', '?dry_run=1')),
    ([id, body, query]) => check(json('PUT', `/v1/products/${id}${query}`, body)),
    [[String(ids.a.products[0]), JSON.stringify({ price: 13 }), '']],
  );

  const bulkItem = productBody(ids, { withId: true });
  await property(
    'PUT /v1/products/bulk with any batch',
    fc.tuple(
      bodyOf(fc.uniqueArray(bulkItem, { minLength: 1, maxLength: 5, selector: (item) => item.id })),
      fc.constantFrom('', '?dry_run=true'),
    ),
    ([body, query]) => check(json('PUT', `/v1/products/bulk${query}`, body)),
    [[JSON.stringify([{ id: ids.a.products[1], price: 14 }]), '']],
  );

  await property(
    'PATCH /v1/products/{id}/availability with any body',
    fc.tuple(pathId(ids), bodyOf(productBody(ids, { keys: ['available', 'available_in_delivery'] }))),
    ([id, body]) => check(json('PATCH', `/v1/products/${id}/availability`, body)),
    [[String(ids.a.products[2]), JSON.stringify({ available: false })]],
  );

  await property(
    'a JSON route with any content type',
    fc.tuple(
      fc.constantFrom(
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json; charset=latin1',
        'application/xml',
        '',
      ),
      hostileText,
    ),
    ([type, payload]) =>
      check({
        ...json('POST', '/v1/products', payload),
        headers: { authorization: auth.all, 'content-type': type },
      }),
  );

  const field = fc.oneof(hostileText, fc.constantFrom(ids.a.apiKey, ids.b.apiKey, 'ck_live_x', 'crt_x', ''));
  const formKeys = [
    'grant_type',
    'api_key',
    'refresh_token',
    'scope',
    'client_id',
    'client_secret',
    'code',
    'redirect_uri',
    'code_verifier',
  ];
  const exchange = fc
    .tuple(
      fc.option(fc.constantFrom('products:read', 'menu:read products:write', 'admin', ''), {
        nil: undefined,
      }),
      fc.array(fc.tuple(fc.constantFrom(...formKeys), field), { maxLength: 1 }),
    )
    .map(([scope, extra]): [string, string][] => [
      ['grant_type', 'api_key'],
      ['api_key', ids.a.apiKey],
      ...(scope === undefined ? [] : [['scope', scope] as [string, string]]),
      ...extra,
    ]);
  const validExchange: [string, string][] = [
    ['grant_type', 'api_key'],
    ['api_key', ids.a.apiKey],
  ];
  await property(
    'POST /oauth/token with any form',
    fc.tuple(
      fc.oneof(
        exchange,
        fc.array(fc.tuple(fc.constantFrom(...formKeys, 'username'), field), { maxLength: 5 }),
      ),
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded',
        'application/json',
        'text/plain',
      ),
      fc.option(fc.constantFrom('Basic eDp5', 'Bearer x', 'Basic !!!'), { freq: 4, nil: undefined }),
    ),
    async ([form, type, authorization]) => {
      const payload = new URLSearchParams(form).toString();
      const res = await check(
        {
          method: 'POST',
          url: '/oauth/token',
          payload,
          headers: { 'content-type': type, ...(authorization ? { authorization } : {}) },
        },
        true,
      );
      if (res.statusCode === 200) assert.equal(res.json().token_type, 'Bearer');
    },
    [
      [validExchange, 'application/x-www-form-urlencoded', undefined] as [
        [string, string][],
        string,
        string | undefined,
      ],
    ],
  );

  await property('a bearer header of any shape', fc.oneof(hostileText, hostileValue.map(asText)), (value) =>
    check({ url: '/v1/menu', headers: { authorization: `Bearer ${value.replace(/[\r\n]/g, '')}` } }),
  );

  // Events: forged cursors of every form (numbers past xid8 and bigint, zero and negative
  // places, B's restaurant), lists of types, any limit; the feed's own next_cursor among them.
  const firstPage = await app.inject(get('/v1/events?limit=1'));
  assert.equal(firstPage.statusCode, 200, firstPage.body);
  const place = fc.tuple(
    fc.oneof(fc.bigInt({ min: -1n, max: 2n ** 64n + 1n }), fc.constantFrom(0n, 2n ** 63n, 2n ** 64n - 1n)),
    fc.oneof(fc.integer({ min: -1, max: 2 ** 31 }), fc.constantFrom(2 ** 53 + 1, 2 ** 63, 10 ** 16)),
    fc.constantFrom(ids.a.restaurant, ids.b.restaurant, 0),
  );
  const cursor = fc.oneof(
    fc.constant(String(firstPage.json().next_cursor)),
    place.map(([xid, seq, r]) => Buffer.from(`v2.${xid}.${seq}.${r}`).toString('base64url')),
    place.map(([xid, seq, r]) => Buffer.from(`${xid}.${seq}.${Date.now()}.${r}`).toString('base64url')),
    hostileText,
  );
  const eventType = fc.constantFrom(...EVENT_TYPES, 'ping', 'product.*', '', ' product.updated');
  await property(
    'GET /v1/events with any cursor, types and limit',
    queryOf({
      after: cursor,
      types: fc.array(eventType, { minLength: 1, maxLength: 4 }).map((types) => types.join(',')),
      limit: fc.integer({ min: -1, max: 101 }).map(String),
      restaurant_id: fc.constantFrom(String(ids.a.restaurant), String(ids.b.restaurant)),
    }),
    (query) => check(get(`/v1/events?${query}`)),
    ['', `after=${firstPage.json().next_cursor}&types=menu.updated,product.updated&limit=5`],
  );

  // Webhook endpoints: one of A's and one of B's exist (B's is never shown); a URL is only an
  // address literal, localhost or no URL at all, so that no run asks a DNS server.
  const endpointOf = async (restaurant: number, description: string) => {
    const values = {
      url: 'https://127.0.0.1:9/hook',
      events: ['product.updated'],
      description,
      secret_encrypted: encryptSecret(newSecret(), ctx.secrets.fiscalTokenKey),
    };
    const row = await insertEndpoint(ctx.db, restaurant, values, 16, null);
    return String(typeof row === 'object' ? row.id : undefined);
  };
  const endpoints = [
    await endpointOf(ids.a.restaurant, 'mine'),
    await endpointOf(ids.b.restaurant, OTHER_MARKER),
  ];
  const hookUrl = fc.oneof(
    fc.constantFrom(
      'https://127.0.0.1:9/hook',
      'http://127.0.0.1:9/hook',
      'https://10.0.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://localhost/x',
      'https://0x7f000001/x',
      'https://2130706433/x',
      'https://user:pass@127.0.0.1/x',
      'ftp://127.0.0.1/x',
      'javascript:alert(1)',
    ),
    hostileText.filter((text) => !URL.canParse(text)),
  );
  await property(
    'POST /v1/webhook-endpoints with any body',
    bodyOf(
      fc.record(
        {
          url: hookUrl,
          events: fc.array(eventType, { maxLength: 9 }),
          description: hostileText,
        },
        { requiredKeys: ['url', 'events'] },
      ),
    ),
    (body) => check(json('POST', '/v1/webhook-endpoints', body)),
  );

  const endpointId = fc.oneof(fc.constantFrom(...endpoints), pathId(ids));
  await property(
    'every webhook-endpoint route with any id and query',
    fc.tuple(
      fc.constantFrom(
        ['GET', ''],
        ['GET', '/deliveries'],
        ['POST', '/test'],
        ['POST', '/enable'],
        ['POST', '/rotate-secret'],
        ['DELETE', ''],
      ),
      endpointId,
      queryOf({ ...mine, limit: fc.integer({ min: -1, max: 101 }).map(String) }),
    ),
    ([[method, tail], id, query]) =>
      check({
        method: method as 'GET',
        url: `/v1/webhook-endpoints/${id}${tail}?${query}`,
        headers: { authorization: auth.all },
      }),
    [[['GET', '/deliveries'], endpoints[0], 'limit=5']],
  );

  await t.test("restaurant B's rows were never written", async () => {
    assert.deepEqual(await rowsOfB(), before);
    const answers = [...statuses].sort().map(([k, n]) => `${k}: ${n}`);
    t.diagnostic(`answers (route status: count): ${answers.join(', ')}`);
    // Every route's success was reached (the examples make sure), so the runs exercised the
    // paths behind validation, not only the schema's refusals.
    const successes = [
      'POST /v1/products 201',
      'PUT /v1/products/bulk 200',
      'PUT /v1/products/:id 200',
      'GET /v1/menu 200',
      'PATCH /v1/products/:id/availability 200',
      'GET /v1/products/:id 200',
      'GET /v1/nfe-received/info/:id 200',
      'GET /v1/events 200',
      'GET /v1/webhook-endpoints/:id/deliveries 200',
    ];
    for (const success of [
      ...successes,
      'GET /v1/financial/cash-flows 200',
      'GET /v1/nfe-received 200',
      'POST /oauth/token 200',
    ]) {
      assert.ok(statuses.has(success), `no run reached ${success}`);
    }
  });
});
