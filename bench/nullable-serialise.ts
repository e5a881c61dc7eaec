// `node bench/nullable-serialise.ts [--rounds 5] [--ms 400]`: the two ways of writing a nullable
// field, timed in Fastify's response serialiser (fast-json-stringify, as Fastify builds it). One
// page of 100 objects of 10 nullable fields (texts, date-time texts, integers, a number, an
// enum and an object; about half null), serialised by a schema in each form: `anyOf: [X, null]`
// (TypeBox's `Type.Union([X, Type.Null()])`) and `type: [x, 'null']` (http/nullable.ts). The
// forms run in alternating rounds; the ratio is the median of the rounds' ratios. Also checks
// that both write the same bytes. Prints Markdown.
import { parseArgs } from 'node:util';
import build from 'fast-json-stringify';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, ms: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 5);
const MS = Number(values.ms ?? 400);

type Schema = Record<string, unknown>;
const STATUSES = ['pending', 'succeeded', 'failed'];

/** The ten nullable fields, each given as its non-null schema. */
const FIELDS: Record<string, Schema> = {
  name: { type: 'string' },
  description: { type: 'string' },
  reference: { type: 'string' },
  paid_at: { type: 'string', format: 'date-time' },
  canceled_at: { type: 'string', format: 'date-time' },
  brand_id: { type: 'integer' },
  provider_id: { type: 'integer' },
  weight: { type: 'number' },
  status: { type: 'string', enum: STATUSES },
  provider: {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' } },
    required: ['id', 'name'],
  },
};

const anyOf = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
const typeArray = (schema: Schema): Schema =>
  Array.isArray(schema.enum)
    ? { ...schema, type: [schema.type, 'null'], enum: [...schema.enum, null] }
    : { ...schema, type: [schema.type, 'null'] };

const page = (nullable: (schema: Schema) => Schema): Schema => ({
  type: 'array',
  items: {
    type: 'object',
    properties: Object.fromEntries(Object.entries(FIELDS).map(([key, schema]) => [key, nullable(schema)])),
    required: Object.keys(FIELDS),
  },
});

const rows = Array.from({ length: 100 }, (_, i) => {
  const set = (k: number) => (i + k) % 2 === 0;
  return {
    name: set(0) ? `Produto ${i}` : null,
    description: set(1) ? 'Pizza de mussarela com "borda" recheada' : null,
    reference: set(0) ? `REF-${i}` : null,
    paid_at: set(1) ? '2026-03-01T12:30:00.000Z' : null,
    canceled_at: set(0) ? '2026-03-02T08:00:00.000Z' : null,
    brand_id: set(1) ? 20 + i : null,
    provider_id: set(0) ? 500 + i : null,
    weight: set(1) ? i * 0.25 : null,
    status: set(0) ? STATUSES[i % 3] : null,
    provider: set(1) ? { id: i, name: `Fornecedor ${i}` } : null,
  };
});

const forms = { 'anyOf: [X, null]': build(page(anyOf)), "type: [x, 'null']": build(page(typeArray)) };
const [first, second] = Object.values(forms).map((serialise) => serialise(rows));
if (first !== second) throw new Error('The two forms wrote different bytes.');

function opsPerSecond(serialise: (value: unknown) => string): number {
  let ops = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MS) {
    for (let i = 0; i < 50; i++) serialise(rows);
    ops += 50;
    elapsed = performance.now() - start;
  }
  return (ops * 1000) / elapsed;
}

for (const serialise of Object.values(forms)) for (let i = 0; i < 2000; i++) serialise(rows);

const names = Object.keys(forms) as (keyof typeof forms)[];
const results = new Map(names.map((name) => [name, [] as number[]]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse();
  for (const name of order) results.get(name)?.push(opsPerSecond(forms[name]));
}
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
const ratios = results.get(names[1])?.map((ops, i) => ops / (results.get(names[0]) ?? [])[i]) ?? [];

console.log(`| form | pages/s (median of ${ROUNDS} rounds of ${MS} ms; 100 objects × 10 nullable fields) |`);
console.log('| --- | --- |');
for (const name of names) console.log(`| \`${name}\` | ${Math.round(median(results.get(name) ?? []))} |`);
console.log(
  `\ntype array / anyOf: ${median(ratios).toFixed(1)}× (rounds: ${ratios.map((r) => r.toFixed(1)).join(', ')})`,
);
