// Mass assignment: a valid write body plus one read-only, internal, unknown or prototype field
// is refused whole (400) on every write route, and nothing is written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertWellFormed, securityApp } from './setup.ts';

const READ_ONLY = {
  restaurant_id: 2,
  created_at: '2020-01-01T00:00:00.000Z',
  updated_at: '2020-01-01T00:00:00.000Z',
  fiscal: { ncm: '1' },
};
const INTERNAL = {
  cost: 1,
  brand_id: 20,
  position: 0,
  removed_at: null,
  fiscal_group_id: 1,
  is_combo: true,
  combo_min_items: 2,
  schedules: [],
};
const UNKNOWN = { admin: true, role: 'owner', constructor: { prototype: { admin: true } } };
const STRANGERS: [string, unknown][] = [
  ...Object.entries(READ_ONLY),
  ...Object.entries(INTERNAL),
  ...Object.entries(UNKNOWN),
  ['__proto__', { admin: true }],
];

/** `{...body, [name]: value}` as JSON text, with `__proto__` as a real own key. */
const withField = (body: object, name: string, value: unknown) => {
  const text = JSON.stringify(body);
  return `${text.slice(0, -1)}${text.length > 2 ? ',' : ''}${JSON.stringify(name)}:${JSON.stringify(value)}}`;
};

test('mass assignment', async (t) => {
  const { app, ids, auth } = await securityApp(t);
  const [product] = ids.a.products;
  const send = (method: 'POST' | 'PUT' | 'PATCH', url: string, payload: string) =>
    app.inject({
      method,
      url,
      payload,
      headers: { authorization: auth.all, 'content-type': 'application/json' },
    });
  const read = async () =>
    (await app.inject({ url: `/v1/products/${product}`, headers: { authorization: auth.all } })).json();
  const count = async () =>
    (await app.inject({ url: '/v1/products', headers: { authorization: auth.all } }))
      .json()
      .flatMap((c: { products: unknown[] }) => c.products).length;

  const writes: [string, (name: string, value: unknown) => Promise<{ statusCode: number; body: string }>][] =
    [
      [
        'POST /v1/products',
        (n, v) =>
          send(
            'POST',
            '/v1/products',
            withField({ name: 'X', product_category_id: ids.a.category, price: 5 }, n, v),
          ),
      ],
      [
        'PUT /v1/products/{id}',
        (n, v) => send('PUT', `/v1/products/${product}`, withField({ price: 77 }, n, v)),
      ],
      [
        'PUT /v1/products/{id}?dry_run=true',
        (n, v) => send('PUT', `/v1/products/${product}?dry_run=true`, withField({ price: 77 }, n, v)),
      ],
      [
        'PUT /v1/products/bulk',
        (n, v) => send('PUT', '/v1/products/bulk', `[${withField({ id: product, price: 77 }, n, v)}]`),
      ],
      [
        'PATCH /v1/products/{id}/availability',
        (n, v) =>
          send('PATCH', `/v1/products/${product}/availability`, withField({ available: false }, n, v)),
      ],
    ];

  for (const [route, write] of writes) {
    await t.test(
      `${route}: each read-only, internal, unknown or prototype field refuses the whole body`,
      async () => {
        const before = await read();
        const products = await count();
        for (const [name, value] of STRANGERS) {
          const res = await write(name, value);
          assertWellFormed(res as never, `${route} with ${name}`);
          assert.equal(res.statusCode, 400, `${route} with ${name}: ${res.body}`);
          assert.equal(JSON.parse(res.body).key, 'invalid_body', `${route} with ${name}`);
        }
        assert.deepEqual(await read(), before);
        assert.equal(await count(), products);
      },
    );
  }

  await t.test(
    'the same bodies without the stranger are accepted (the refusals came from the field)',
    async () => {
      for (const [route, write] of writes) {
        const res = await write('description', 'plain');
        if (route.startsWith('PATCH')) assert.equal(res.statusCode, 400, res.body);
        else assert.ok(res.statusCode === 200 || res.statusCode === 201, `${route}: ${res.body}`);
      }
    },
  );
});
