// Property-based tests over every route's body, path and query: whatever arrives, the answer is
// never a 500, always in the error model (the token endpoint: RFC 6749's), never carries data of
// the other restaurant, and restaurant B's rows are never written. FUZZ_RUNS sets the runs per
// property (100 here; `npm run fuzz` runs many more), FUZZ_SECONDS bounds each property's time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
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
      .replace(/\/(products|info)\/(?!bulk$)[^/]+/, '/$1/:id')} ${res.statusCode}`;
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
