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
import { type AppError, errors, summarize } from './errors.ts';

type Schema = Record<string, any>;
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** More values than any valid request carries (a full bulk of 100 is under 5,000). */
export const FULL_CHECK_VALUES = 10_000;
export const STOPPED_KEYWORD = 'stopped';
/** An integer or boolean parameter's text check: its error carries the sentence to answer. */
export const TEXT_KEYWORD = 'text';
/** A query parameter given more than once: its error carries REPEATED_PARAMETER. */
export const REPEATED_KEYWORD = 'repeated';
const REPEATED_PARAMETER = 'is given more than once: give it once (a list goes in one, comma-separated)';

const common: Options = { removeAdditional: false, useDefaults: true, strict: false };

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...common, ...options });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

/** Whether `data` holds at most `limit` values (keys and array items, nested ones included). */
function withinValues(data: unknown, limit: number): boolean {
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
const INTEGER_TEXT = '^(0|-?[1-9][0-9]{0,15})$';

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
    const wrong = asText.errors!.map((e) =>
      messages[e.instancePath] ? { ...e, keyword: TEXT_KEYWORD, message: messages[e.instancePath] } : e,
    );
    const paths = new Set(wrong.map((e) => e.instancePath));
    const others = typed(data) ? [] : typed.errors!.filter((e) => !paths.has(e.instancePath));
    validate.errors = [...wrong, ...others];
    return false;
  };
  return validate;
}

/** Whether a query value was given more than once: the query parser then makes it an array. */
export const givenMoreThanOnce = (value: unknown): boolean => Array.isArray(value);

/** The answer to query parameters given more than once that are read before the schema checks them. */
export function repeatedParameters(names: string[]): AppError {
  const fields = names.map((field) => ({ field, message: REPEATED_PARAMETER }));
  return errors.invalidQuery(`Invalid query: ${summarize(fields)}.`, fields);
}

/** A parameter's name as it ends an instancePath (a JSON pointer). */
const pointer = (name: string) => `/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;

/**
 * The one rule for a query parameter given more than once (`?limit=5&limit=6`, `?types=a&types=b`):
 * it reaches the schema as an array, and whatever its declared type (text, integer, boolean, an
 * enum, a union), it is answered REPEATED_PARAMETER, in place of what its own checks say of an
 * array. The other parameters are checked as usual. A parameter the schema does not declare is left
 * to it (not an accepted field), as is one declared as an array (none is, today). The query's
 * restaurant_id, read by authentication before the schema runs, is answered the same there
 * (authenticate.ts, repeatedParameters).
 */
function refusingRepeated(schema: Schema, validate: Validate): Validate {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const once = new Set(Object.keys(properties).filter((name) => properties[name].type !== 'array'));
  const checked: Validate = (data) => {
    const repeated =
      data !== null && typeof data === 'object'
        ? Object.entries(data).flatMap(([name, value]) =>
            once.has(name) && givenMoreThanOnce(value) ? [name] : [],
          )
        : [];
    const valid = validate(data);
    if (repeated.length === 0) {
      checked.errors = validate.errors;
      return valid;
    }
    const paths = repeated.map(pointer);
    const others = (validate.errors ?? []).filter(
      (e) => !paths.some((path) => e.instancePath === path || e.instancePath.startsWith(`${path}/`)),
    );
    checked.errors = [
      ...paths.map((instancePath) => ({
        keyword: REPEATED_KEYWORD,
        instancePath,
        schemaPath: '',
        params: {},
        message: REPEATED_PARAMETER,
      })),
      ...others,
    ];
    return false;
  };
  checked.errors = null;
  return checked;
}

const patternMessages = new Map<string, string>();

/**
 * A pattern with what an answer says instead of quoting it: `says` ("must be a date-time with
 * seconds") and an example, which is also the schema's. Spread it into the parameter's schema:
 * `Type.String({ ...explainedPattern(pattern, says, example), description })`.
 */
export function explainedPattern(pattern: string, says: string, example: string) {
  const message = `${says}, e.g. ${example}`;
  const known = patternMessages.get(pattern);
  if (known !== undefined && known !== message) throw new Error(`pattern ${pattern} explained twice`);
  patternMessages.set(pattern, message);
  return { pattern, examples: [example] };
}

/** What an answer says of a value that breaks `pattern`; never the pattern itself. */
export const patternMessage = (pattern: string): string =>
  patternMessages.get(pattern) ?? 'is not in the expected form';

const FORMAT_MESSAGES: Record<string, string> = {
  'date-time': 'must be a date-time with seconds and an offset, e.g. 2026-09-01T00:00:00-03:00',
  date: 'must be a calendar date, e.g. 2026-09-01',
  time: 'must be a time with seconds and an offset, e.g. 13:00:00-03:00',
  uri: 'must be an absolute URL, e.g. https://erp.example/hooks',
  email: 'must be an email address, e.g. fiscal@restaurant.example',
  uuid: 'must be a UUID, e.g. 0b6e8f3c-5a8e-4c2b-9a51-2f0c1b7d9e44',
};

/** What an answer says of a value that is not of `format`. */
export const formatMessage = (format: string): string =>
  FORMAT_MESSAGES[format] ?? `must be a valid ${format}`;

/** An enum's allowed values, named: `must be one of: in_store, delivery`. */
export const enumMessage = (allowed: unknown[]): string =>
  `must be one of: ${allowed.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ')}`;

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body')
    return twoPass(
      firstProblem.strict.compile(schema as object),
      allProblems.strict.compile(schema as object),
    );
  const parameters = compileParameters(schema as Schema);
  return httpPart === 'querystring' ? refusingRepeated(schema as Schema, parameters) : parameters;
};
