// Two validators: bodies are checked strictly (no type coercion, unknown fields kept so the
// schema rejects them: "12.50" is never a price), while query strings and path parameters
// are coerced from text ('true' -> true, '5' -> 5) as they can only be text.
// Every part is first checked up to its first problem; only a part with at most
// FULL_CHECK_VALUES values is then checked again for all its problems, so a hopeless body (say
// 60,000 unknown keys) costs one problem's work, not one per key.
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

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

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const kind = httpPart === 'body' ? 'strict' : 'coercing';
  return twoPass(firstProblem[kind].compile(schema as object), allProblems[kind].compile(schema as object));
};
