// fast-check arbitraries of hostile requests: bodies built from each route's own fields (so
// many runs get deep into the rules) mixed with read-only, unknown and prototype-polluting
// fields, values of every JSON type, the other restaurant's ids, and hostile text.
import fc from 'fast-check';
import { FISCAL_COLUMNS } from '../../src/db/fiscal-columns.ts';
import type { WorldIds } from './world.ts';

export const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ minLength: 250, maxLength: 260 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'null',
    'true',
    '12,50',
    'R$ 12,50',
    '1e309',
    "'; drop table products; --",
    '<script>alert(1)</script>',
    '../../etc/passwd',
    '%00',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
    '${7*7}',
    '__proto__',
    '2026-02-30T25:61:61Z',
    '2026-01-10T12:00:00.000Z',
    '9'.repeat(400),
  ),
);

export const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.integer({ min: -100_000, max: 100_000_000 }).map((cents) => cents / 100),
  fc.constantFrom(
    0,
    -0,
    -1,
    1.005,
    0.1 + 0.2,
    1e-7,
    1e21,
    9999999999.99,
    10000000000,
    2147483647,
    2147483648,
    2 ** 53 + 1,
  ),
);

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

export function idPool(ids: WorldIds): fc.Arbitrary<number> {
  return fc.constantFrom(
    ...ids.a.products,
    ...ids.b.products,
    ids.a.category,
    ids.b.category,
    ids.a.nfe,
    ids.b.nfe,
    ids.b.restaurant,
    0,
    -1,
    2147483647,
    2147483648,
  );
}

const cents = (min: number, max: number) => fc.integer({ min, max }).map((c) => c / 100);

/** Valid values of every product write field (B's ids now and then). */
function validFields(ids: WorldIds): Record<string, fc.Arbitrary<unknown>> {
  const money = cents(0, 1_000_000);
  const optionalMoney = fc.oneof(money, fc.constant(null));
  return {
    name: fc.oneof(fc.constant('Pizza'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 })),
    product_category_id: fc.oneof(
      { weight: 5, arbitrary: fc.constant(ids.a.category) },
      { weight: 1, arbitrary: fc.constant(ids.b.category) },
    ),
    description: fc.oneof(fc.string({ maxLength: 255 }), fc.constant(null)),
    price: cents(1, 1_000_000),
    price_promotion: optionalMoney,
    delivery_price: optionalMoney,
    delivery_price_promotion: optionalMoney,
    available: fc.boolean(),
    available_in_delivery: fc.boolean(),
    sold_off: fc.boolean(),
    use_weight: fc.boolean(),
    has_starting_price: fc.boolean(),
    charge_service_tax: fc.boolean(),
    expected_updated_at: fc.oneof(
      fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
      fc.constant('2026-01-10T12:00:00.000Z'),
    ),
    fiscal_info: fc.dictionary(
      fc.constantFrom(...FISCAL_COLUMNS),
      fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)),
      { maxKeys: 3 },
    ),
  };
}

/** Keys a hostile client adds: read-only, internal, unknown and prototype-polluting fields. */
const STRANGERS = [
  'id',
  'restaurant_id',
  'created_at',
  'updated_at',
  'fiscal',
  'cost',
  'brand_id',
  'position',
  'removed_at',
  'fiscal_group_id',
  'is_combo',
  '__proto__',
  'constructor',
  'prototype',
];

/** 0 to 2 changes to a valid object: a field set to a hostile value, or a stranger added. */
function mutations(keys: string[], ids: WorldIds): fc.Arbitrary<[string, unknown][]> {
  const value = fc.oneof(hostileValue, idPool(ids), fc.constant(ids.b.restaurant));
  const change = fc.tuple(
    fc.oneof(fc.constantFrom(...keys, ...STRANGERS), fc.string({ maxLength: 10 })),
    value,
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [string, unknown][]) },
    { weight: 2, arbitrary: fc.array(change, { minLength: 1, maxLength: 2 }) },
  );
}

function apply(base: Record<string, unknown>, changes: [string, unknown][]): Record<string, unknown> {
  for (const [key, value] of changes)
    Object.defineProperty(base, key, { value, enumerable: true, writable: true, configurable: true });
  return base;
}

/**
 * A product body: a valid object (any subset of `keys`, `required` always present) that a
 * mutation makes hostile in about two runs of five.
 */
export function productBody(
  ids: WorldIds,
  options: { keys?: string[]; required?: string[]; withId?: boolean } = {},
): fc.Arbitrary<Record<string, unknown>> {
  const all = validFields(ids);
  const keys = options.keys ?? Object.keys(all);
  const model = Object.fromEntries(keys.map((k) => [k, all[k] ?? hostileValue]));
  if (options.withId)
    model.id = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...ids.a.products) },
      { weight: 1, arbitrary: idPool(ids) },
    );
  const required = [...(options.required ?? []), ...(options.withId ? ['id'] : [])];
  return fc
    .tuple(fc.record(model, { requiredKeys: required }), mutations(keys, ids))
    .map(([base, changes]) => apply(base, changes));
}

/** What goes into a JSON body: mostly the route's shape, sometimes anything at all. */
export function bodyOf(shape: fc.Arbitrary<unknown>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: shape.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null') },
    {
      weight: 1,
      arbitrary: fc.oneof(fc.string(), fc.constantFrom('{', '[1,', '{"a":1}{', '\u0000', '{"price": 1,}')),
    },
  );
}

/** Percent-encoding of any string, lone surrogates included (as U+FFFD). */
const percent = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** A query string: valid values of the route's parameters, made hostile in about two runs of five. */
export function queryOf(
  known: Record<string, fc.Arbitrary<string>>,
  required: string[] = [],
): fc.Arbitrary<string> {
  const value = fc.oneof(hostileText, hostileNumber.map(String));
  const stranger = fc.oneof(
    fc.constantFrom(...Object.keys(known), '__proto__', 'constructor', 'limit', 'page'),
    fc.string({ maxLength: 10 }),
  );
  const changes = fc.oneof(
    { weight: 3, arbitrary: fc.constant([] as [string, string][]) },
    { weight: 2, arbitrary: fc.array(fc.tuple(stranger, value), { minLength: 1, maxLength: 2 }) },
  );
  const tail = fc.oneof(
    { weight: 8, arbitrary: fc.constant('') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '&',
        '&&=&',
        '&a[b]=c',
        '&%zz',
        '&__proto__[x]=1',
        '&search=%ED%A0%80',
        '&x=%FF%FE',
        '&access_token=x',
      ),
    },
  );
  return fc.tuple(fc.record(known, { requiredKeys: required }), changes, tail).map(([named, extra, end]) => {
    const pairs = [...Object.entries(named), ...extra].map(([k, v]) => `${percent(k)}=${percent(String(v))}`);
    return `${pairs.join('&')}${end}`;
  });
}

export const pathId = (ids: WorldIds) =>
  fc.oneof(
    { weight: 4, arbitrary: idPool(ids).map(String) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.constantFrom('1.5', '1e3', '0x10', '00001', '%20', '..%2F..', 'bulk', '-0', '+1', ' 1'),
        fc.string({ maxLength: 20 }).map(percent),
      ),
    },
  );

export const date = fc.oneof(
  fc
    .date({ min: new Date('1000-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  fc.constantFrom('2026-03-01', '2026-03-31', '2026-02-30', '2025-02-29', '2026-1-1'),
);

export const instant = fc.oneof(
  fc
    .date({ min: new Date('1000-01-01'), max: new Date('9999-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-01-01T00:00:00Z',
    '2026-01-31T23:59:59-03:00',
    '2026-01-10T13:00:00',
    '2026-01-10T13:00',
  ),
);
