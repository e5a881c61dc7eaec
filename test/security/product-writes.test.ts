// Property tests of product writes (create, single edit, bulk; edits with and without
// dry_run) with arbitrary Unicode (lone surrogates and NUL included), numbers and key counts:
// never a 5xx, never an answer over ANSWER_BOUND, and the dry run and the write agree on every
// body (same status class, same error key). FUZZ_RUNS sets the runs per property (200 here),
// FUZZ_SECONDS bounds each property's time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { FISCAL_COLUMNS } from '../../src/db/fiscal-columns.ts';
import { hostileNumber, hostileValue } from './arbitraries.ts';
import { assertWellFormed, securityApp } from './setup.ts';

const RUNS = Number(process.env.FUZZ_RUNS || 200);
const SECONDS = Number(process.env.FUZZ_SECONDS || 0);
const PARAMETERS = {
  numRuns: RUNS,
  ...(SECONDS ? { interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false } : {}),
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
};
/** The largest answer any product write may give: a bulk of 4 products with long texts. */
const ANSWER_BOUND = 64 * 1024;

/** Any UTF-16 code unit: lone surrogates, NUL and every control character included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const unicodeText = fc.oneof(
  fc.string({ unit: codeUnit, maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: codeUnit, minLength: 250, maxLength: 260 }),
  fc.constantFrom('\u0000', '\ud800', '\udfff', 'x\ud800y', '\udc00\ud800', 'pizza \ud83c\udf55', ' '),
);
const optionalText = fc.oneof(unicodeText, fc.constant(null));
/** Mostly a valid value, now and then any number or JSON value. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: fc.oneof(hostileNumber, hostileValue) });
const cents = (min: number) => fc.integer({ min, max: 100_000 }).map((c) => c / 100);

function fields(category: number) {
  return {
    name: fc.oneof(unicodeText, fc.constant('Pizza')),
    description: optionalText,
    product_category_id: mostly(fc.constant(category)),
    price: mostly(cents(1)),
    price_promotion: mostly(fc.oneof(cents(0), fc.constant(null))),
    delivery_price: mostly(fc.oneof(cents(0), fc.constant(null))),
    available: mostly(fc.boolean()),
    sold_off: fc.boolean(),
    fiscal_info: fc.dictionary(fc.constantFrom(...FISCAL_COLUMNS), optionalText, { minKeys: 1, maxKeys: 4 }),
  };
}

/** A body of the route's fields, sometimes with up to 40 more keys of any name and value. */
function body(category: number, extra: Record<string, fc.Arbitrary<unknown>> = {}) {
  return fc
    .tuple(
      fc.record({ ...fields(category), ...extra }, { requiredKeys: Object.keys(extra) as never }),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: fc.dictionary(unicodeText, hostileValue, { minKeys: 1, maxKeys: 40 }) },
      ),
    )
    .map(([known, strangers]) => ({ ...strangers, ...known }));
}

test('product writes with arbitrary Unicode, numbers and key counts', async (t) => {
  const { app, ids, auth } = await securityApp(t);
  const send = async (method: 'POST' | 'PUT', url: string, payload: unknown) => {
    const request: InjectOptions = {
      method,
      url,
      payload: JSON.stringify(payload),
      headers: { authorization: auth.all, 'content-type': 'application/json' },
    };
    const res = await app.inject(request);
    const context = `${method} ${url} ${JSON.stringify(payload).slice(0, 300)}`;
    assertWellFormed(res, context);
    assert.ok(res.statusCode < 500, `${context} -> ${res.statusCode} ${res.body.slice(0, 300)}`);
    assert.ok(res.body.length <= ANSWER_BOUND, `${context} -> ${res.body.length} bytes`);
    return res;
  };
  const outcome = (res: Awaited<ReturnType<typeof send>>) => ({
    class: Math.floor(res.statusCode / 100),
    key: res.statusCode >= 400 ? res.json().key : undefined,
  });
  /** The dry run first (it writes nothing), then the write: both see the same product. */
  const agree = async (url: string, payload: unknown) => {
    const dry = await send('PUT', `${url}?dry_run=true`, payload);
    const real = await send('PUT', url, payload);
    assert.deepEqual(
      outcome(real),
      outcome(dry),
      `${url} ${JSON.stringify(payload).slice(0, 300)}: ${dry.body.slice(0, 200)} / ${real.body.slice(0, 200)}`,
    );
  };
  const property = <T>(name: string, arbitrary: fc.Arbitrary<T>, run: (value: T) => Promise<unknown>) =>
    t.test(name, () =>
      fc.assert(
        fc.asyncProperty(arbitrary, async (value) => {
          await run(value);
        }),
        PARAMETERS,
      ),
    );

  const category = ids.a.category;
  const product = fc.constantFrom(...ids.a.products);
  const { fiscal_info: _, ...createFields } = fields(category);
  await property(
    'POST /v1/products: no 5xx, a bounded answer',
    fc.tuple(
      fc.record(createFields, { requiredKeys: ['name', 'product_category_id', 'price'] }),
      fc.oneof(
        { weight: 6, arbitrary: fc.constant({}) },
        { weight: 1, arbitrary: fc.dictionary(unicodeText, hostileValue, { minKeys: 1, maxKeys: 40 }) },
      ),
    ),
    ([known, strangers]) => send('POST', '/v1/products', { ...strangers, ...known }),
  );
  await property(
    'PUT /v1/products/{id}: the dry run and the write agree',
    fc.tuple(product, body(category)),
    ([id, value]) => agree(`/v1/products/${id}`, value),
  );
  await property(
    'PUT /v1/products/bulk: the dry run and the write agree',
    fc
      .uniqueArray(product, { minLength: 1, maxLength: 4 })
      .chain((chosen) => fc.tuple(...chosen.map((id) => body(category, { id: fc.constant(id) })))),
    (items) => agree('/v1/products/bulk', items),
  );
});
