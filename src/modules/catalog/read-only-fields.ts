// Fields of the product response that must not come back in a write body (contract 2.1 rule 4).
// Checked before schema validation so the answer says why ("is read-only") rather than only
// "is not an accepted field".
import type { FastifyRequest } from 'fastify';
import { errors, type FieldError } from '../../http/errors.ts';

const READ_ONLY: Record<string, string> = {
  restaurant_id: 'is read-only: the restaurant comes from the credential',
  created_at: 'is read-only',
  updated_at: 'is read-only: send it as expected_updated_at to guard against concurrent edits',
  fiscal: 'is read-only: edit fiscal attributes through fiscal_info',
};

export const SINGLE_EDIT_REJECTS: Record<string, string> = {
  ...READ_ONLY,
  id: 'is read-only: the path names the product',
};

export const CREATE_ONLY_REJECTS: Record<string, string> = {
  ...READ_ONLY,
  id: 'is read-only: the server assigns ids',
  fiscal_info: 'is accepted only on edit',
  expected_updated_at: 'is accepted only on edit',
};

function offending(body: unknown, rejected: Record<string, string>, at: string): FieldError[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  return Object.keys(body)
    .filter((key) => Object.hasOwn(rejected, key))
    .map((key) => ({ field: `${at}${key}`, message: rejected[key] }));
}

const isEmptyObject = (value: unknown) =>
  !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;

/**
 * A single edit's body has no `id` (the path names the product, and the schema has none): sent
 * with nothing that could change the product (at most expected_updated_at and an empty
 * fiscal_info), it is "no change" (contract 7); with more, SINGLE_EDIT_REJECTS calls it read-only.
 */
export async function rejectIdOnlyEdit(request: FastifyRequest) {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body) || !Object.hasOwn(body, 'id')) return;
  const inert = (key: string, value: unknown) =>
    key === 'id' || key === 'expected_updated_at' || (key === 'fiscal_info' && isEmptyObject(value));
  if (Object.entries(body).every(([key, value]) => inert(key, value))) throw errors.productChangesRequired();
}

/** A preValidation hook rejecting read-only fields in an object body, or in each object of an array. */
export function rejectReadOnly(rejected: Record<string, string> = READ_ONLY) {
  return async (request: FastifyRequest) => {
    const body = request.body;
    const found = Array.isArray(body)
      ? body.flatMap((item, index) => offending(item, rejected, `[${index}].`))
      : offending(body, rejected, '');
    if (found.length) {
      throw errors.invalidBody(
        `Invalid body: ${found.map((f) => `${f.field} ${f.message}`).join('; ')}.`,
        found,
      );
    }
  };
}
