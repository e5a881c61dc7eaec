// Two validators: bodies are checked strictly (no type coercion, unknown fields kept so the
// schema rejects them: "12.50" is never a price), while query strings and path parameters
// are coerced from text ('true' -> true, '5' -> 5) as they can only be text.
import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...common, ...options });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ajv;
}

const strict = makeAjv({ coerceTypes: false });
const coercing = makeAjv({ coerceTypes: true });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? strict : coercing).compile(schema as object);
