// The TypeScript types an integrator generates from comanda's OpenAPI document with
// openapi-typescript (for openapi-fetch). openapi-typescript builds them with TypeScript 5's
// compiler API, which TypeScript 7 (the project's) does not have: hence this package of its own.
import openapiTS, { astToString } from 'openapi-typescript';

export async function generateTypes(document: object): Promise<string> {
  return astToString(await openapiTS(document as Parameters<typeof openapiTS>[0]));
}
