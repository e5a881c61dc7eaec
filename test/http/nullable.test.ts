import assert from 'node:assert/strict';
import { test } from 'node:test';
import build from 'fast-json-stringify';
import { type Static, type TSchema, Type } from 'typebox';
import { nullable } from '../../src/http/nullable.ts';
import { nameSchema } from '../../src/http/schema-names.ts';
import { validatorCompiler } from '../../src/http/validation.ts';

const validate = (schema: TSchema) =>
  validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/' }) as (value: unknown) => boolean;
const serialise = (schema: TSchema, value: unknown) =>
  build({ type: 'object', properties: { v: schema } })({ v: value });

const CASES: { schema: TSchema; form: object; valid: unknown; invalid: unknown[] }[] = [
  {
    schema: nullable(Type.String({ format: 'date-time', description: 'When.' })),
    form: { type: ['string', 'null'], format: 'date-time', description: 'When.' },
    valid: '2026-03-01T12:00:00Z',
    invalid: ['2026-03-01', 5, {}],
  },
  {
    schema: nullable(Type.String({ pattern: '^[0-9]+$' }), { description: 'Digits.' }),
    form: { type: ['string', 'null'], pattern: '^[0-9]+$', description: 'Digits.' },
    valid: '0123',
    invalid: ['12a', 12],
  },
  { schema: nullable(Type.Integer()), form: { type: ['integer', 'null'] }, valid: 7, invalid: [1.5, '7'] },
  {
    schema: nullable(Type.Number({ minimum: 0 })),
    form: { type: ['number', 'null'], minimum: 0 },
    valid: 12.5,
    invalid: [-1, '12.50'],
  },
  {
    schema: nullable(Type.Object({ id: Type.Integer() })),
    form: { type: ['object', 'null'], required: ['id'], properties: { id: { type: 'integer' } } },
    valid: { id: 1 },
    invalid: [{}, [], 'x'],
  },
  {
    schema: nullable(Type.Array(Type.Integer())),
    form: { type: ['array', 'null'], items: { type: 'integer' } },
    valid: [1, 2],
    invalid: [{}, ['a']],
  },
  {
    schema: nullable(Type.Union([Type.Literal('test'), Type.Literal('live')])),
    form: { type: ['string', 'null'], enum: ['test', 'live', null] },
    valid: 'live',
    invalid: ['other', 1],
  },
  {
    schema: nullable(Type.Enum(['a', 'b'])),
    form: { type: ['string', 'null'], enum: ['a', 'b', null] },
    valid: 'b',
    invalid: ['c'],
  },
];

test('nullable() adds null to the type; requests accept null and the type, nothing else', () => {
  for (const { schema, form, valid, invalid } of CASES) {
    assert.deepEqual({ ...schema }, form);
    const check = validate(schema);
    assert.equal(check(null), true, JSON.stringify(form));
    assert.equal(check(valid), true, JSON.stringify(form));
    for (const value of invalid)
      assert.equal(check(value), false, `${JSON.stringify(value)}: ${JSON.stringify(form)}`);
  }
});

test('the serialiser writes null and the value as JSON.stringify does', () => {
  for (const { schema, valid } of CASES) {
    assert.equal(serialise(schema, null), '{"v":null}');
    assert.equal(serialise(schema, valid), JSON.stringify({ v: valid }));
  }
});

test('nullable() refuses a named schema (its $ref would not admit null) and a mixed union', () => {
  const named = nameSchema('NullableTestNamed', Type.Object({ id: Type.Integer() }));
  assert.throws(() => nullable(named), /named schema/);
  assert.throws(() => nullable(Type.Union([Type.String(), Type.Integer()])), /union/);
});

test('the static type is the schema’s or null', () => {
  const schema = nullable(Type.Union([Type.Literal('test'), Type.Literal('live')]));
  const value: Static<typeof schema> = null;
  const values: Static<typeof schema>[] = [value, 'test', 'live'];
  // @ts-expect-error: not one of the literals.
  values.push('other');
  assert.equal(values.length, 4);
});
