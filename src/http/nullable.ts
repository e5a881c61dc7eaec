// Nullable fields, written one way: the schema's own `type` with 'null' added (`type: ['string',
// 'null']`), never `anyOf: [X, {type: 'null'}]` (TypeBox's `Type.Union([X, Type.Null()])`). The
// response serialiser (fast-json-stringify) writes a type array with one typeof test per value;
// an anyOf it resolves by running ajv on the value against each branch, formats and nested
// objects included, several times slower (README.md has the measure). So the serialiser does not
// check a nullable field's format or pattern (ajv still checks requests). A literal union or an
// enum becomes `type: [..., 'null']` with `enum: [...values, null]`: the same typeof tests (the
// measure has such a field), and ajv, the OpenAPI document and generated clients read the values
// (`'a' | 'b' | null`); anyOf is never needed. OpenAPI 3.1 (JSON Schema) has no `nullable`.
import { type Static, type TSchema, type TUnsafe, Type } from 'typebox';
import { nameOf } from './schema-names.ts';

type Schema = Record<string, unknown>;
type Options = { description?: string };

const typeOfValue = (value: unknown) =>
  value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value;

/** The JSON types of `values`, 'null' last; 'integer' folds into 'number' when both occur. */
function typesOf(values: unknown[]): string[] {
  const types = new Set(values.map(typeOfValue));
  if (types.has('number')) types.delete('integer');
  types.delete('null');
  return [...types, 'null'];
}

/** `{type: [...types, 'null'], enum: [...values, null]}` for a union of literals or an enum. */
function nullableEnum(values: unknown[], rest: Schema): Schema {
  const { type: _type, enum: _enum, ...others } = rest;
  const all = values.includes(null) ? values : [...values, null];
  return { type: typesOf(all), enum: all, ...others };
}

function widen(schema: Schema): Schema {
  const { anyOf, const: literal, ...rest } = schema;
  if (Array.isArray(anyOf)) {
    const branches = anyOf as Schema[];
    if (!branches.every((branch) => 'const' in branch || branch.type === 'null'))
      throw new Error('nullable: a union other than of literals has no single type to add null to');
    return nullableEnum(
      branches.filter((branch) => 'const' in branch).map((branch) => branch.const),
      rest,
    );
  }
  if (literal !== undefined) return nullableEnum([literal], rest);
  if (Array.isArray(rest.enum)) return nullableEnum(rest.enum, rest);
  if (typeof rest.type === 'string') return { ...rest, type: [rest.type, 'null'] };
  if (Array.isArray(rest.type) && !rest.type.includes('null'))
    return { ...rest, type: [...rest.type, 'null'] };
  throw new Error(`nullable: a schema without one type (${JSON.stringify(schema)})`);
}

/**
 * `schema` or null: `{...schema, type: [schema.type, 'null']}`, its keywords (format, pattern,
 * properties, items, description...) kept; for literals or an enum, null joins the values too.
 * A named schema (nameSchema) is refused: its copy would be written as the name's `$ref`,
 * which does not admit null.
 */
export function nullable<T extends TSchema>(schema: T, options: Options = {}): TUnsafe<Static<T> | null> {
  if (nameOf(schema)) throw new Error(`nullable: ${nameOf(schema)} is a named schema`);
  // A plain copy: TypeBox's own (non-enumerable) marks describe the schema before null was added.
  return Type.Unsafe<Static<T> | null>({ ...widen({ ...(schema as Schema) }), ...options });
}
