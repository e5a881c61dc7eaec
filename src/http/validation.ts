// Two validators: bodies are checked strictly (no type coercion, unknown fields kept so the
// schema rejects them: "12.50" is never a price), while query strings and path parameters,
// which can only be text, are declared with their real types (integer, boolean) for the
// document and the handlers, checked as text first and only then coerced. Ajv's coercion alone
// would take "1e3", " 1", "0x1" or "" as numbers and "1" or "" as booleans.
// Every part is first checked up to its first problem; only a part with at most
// FULL_CHECK_VALUES values is then checked again for all its problems, so a hopeless body (say
// 60,000 unknown keys) costs one problem's work, not one per key.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

type Schema = Record<string, any>;
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** More values than any valid request carries (a full bulk of 100 is under 5,000). */
export const FULL_CHECK_VALUES = 10_000;
export const STOPPED_KEYWORD = 'stopped';

const common: Options = { removeAdditional: false, useDefaults: true, strict: false };

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...common, ...options });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

/** Whether `data` holds at most `limit` values (keys and array items, nested ones included). */
export function withinValues(data: unknown, limit: number): boolean {
  const pending: unknown[] = [data];
  let count = 0;
  while (pending.length) {
    const value = pending.pop();
    if (value === null || typeof value !== 'object') continue;
    const children = Array.isArray(value) ? value : Object.values(value);
    count += children.length;
    if (count > limit) return false;
    for (const child of children) pending.push(child);
  }
  return true;
}

const STOPPED: ErrorObject = {
  keyword: STOPPED_KEYWORD,
  instancePath: '',
  schemaPath: '',
  params: {},
  message: `has more problems: a request of over ${FULL_CHECK_VALUES} values is not checked further`,
};

function twoPass(first: ValidateFunction, full: ValidateFunction) {
  const validate = (data: unknown): boolean => {
    if (first(data)) {
      validate.errors = null;
      return true;
    }
    if (withinValues(data, FULL_CHECK_VALUES)) {
      full(data);
      validate.errors = full.errors ?? first.errors ?? null;
    } else validate.errors = [...(first.errors ?? []), STOPPED];
    return false;
  };
  validate.errors = null as ErrorObject[] | null;
  return validate;
}

const firstProblem = { strict: makeAjv({ coerceTypes: false }), coercing: makeAjv({ coerceTypes: true }) };
const allProblems = {
  strict: makeAjv({ coerceTypes: false, allErrors: true }),
  coercing: makeAjv({ coerceTypes: true, allErrors: true }),
};

const text = makeAjv({ coerceTypes: false, useDefaults: false, allErrors: true });

/** Decimal digits with no sign but '-', no leading zero, space, exponent, fraction or radix prefix. */
export const INTEGER_TEXT = '^(0|-?[1-9][0-9]{0,15})$';

const TEXT_OF: Record<string, { schema: Schema; message: string }> = {
  integer: {
    schema: { type: 'string', pattern: INTEGER_TEXT },
    message: 'must be an integer in plain digits',
  },
  boolean: { schema: { type: 'string', enum: ['true', 'false'] }, message: 'must be true or false' },
};

/** What each typed parameter must look like as text; parameters of other types are left to the typed schema. */
function textSchema(schema: Schema): Schema | undefined {
  const typed = Object.entries((schema.properties ?? {}) as Record<string, Schema>).filter(
    ([, property]) => TEXT_OF[property.type],
  );
  if (typed.length === 0) return undefined;
  const properties = Object.fromEntries(typed.map(([name, p]) => [name, TEXT_OF[p.type].schema]));
  return { type: 'object', properties };
}

function compileParameters(schema: Schema): Validate {
  const typed = twoPass(
    firstProblem.coercing.compile(schema),
    allProblems.coercing.compile(schema),
  ) as Validate;
  const shape = textSchema(schema);
  if (!shape) return typed;
  const asText = text.compile(shape) as Validate;
  const messages = Object.fromEntries(
    Object.entries(shape.properties as Record<string, Schema>).map(([name]) => [
      `/${name}`,
      TEXT_OF[schema.properties[name].type].message,
    ]),
  );
  const validate: Validate = (data) => {
    if (asText(data)) {
      const valid = typed(data);
      validate.errors = typed.errors;
      return valid;
    }
    const wrong = asText.errors!.map((e) => ({ ...e, message: messages[e.instancePath] ?? e.message }));
    const paths = new Set(wrong.map((e) => e.instancePath));
    const others = typed(data) ? [] : typed.errors!.filter((e) => !paths.has(e.instancePath));
    validate.errors = [...wrong, ...others];
    return false;
  };
  return validate;
}

const patternMessages = new Map<string, string>();

/** A pattern whose failure the answer explains in words rather than by quoting the pattern. */
export function explainedPattern(pattern: string, message: string): string {
  patternMessages.set(pattern, message);
  return pattern;
}

export const patternMessage = (pattern: string): string | undefined => patternMessages.get(pattern);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  httpPart === 'body'
    ? twoPass(firstProblem.strict.compile(schema as object), allProblems.strict.compile(schema as object))
    : compileParameters(schema as Schema);
