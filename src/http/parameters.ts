// Typed query and path parameters shared by the data routes. They are declared as what they
// mean (integer, boolean) for the OpenAPI document and the handlers; validation.ts checks their
// text strictly before it is coerced.
import { Type } from 'typebox';

export const MAX_ID = 2147483647;

export const idParameter = (description: string) =>
  Type.Integer({ minimum: 1, maximum: MAX_ID, description });

export const restaurantIdParameter = () =>
  Type.Optional(idParameter('Required when the credential authorizes several restaurants.'));

/** `true` or `false`, nothing else (not `1`, `yes` or an empty value). */
export const flagParameter = (description: string, options: { default?: boolean } = {}) =>
  Type.Optional(Type.Boolean({ description, ...options }));
