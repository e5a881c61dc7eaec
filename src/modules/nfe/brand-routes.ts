// GET /v1/brands (scope nfe-received:read): the restaurant's brands, the first step of the NF-e
// sequence (contract 4): choose a brand, list its notes (brand_id), read one. The fiscal token
// never leaves the database: `fiscal_configured` says whether the brand has one.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { restaurantIdParameter } from '../../http/parameters.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { listBrands } from './brand-repository.ts';

const text = Type.Union([Type.String(), Type.Null()]);

export const Brand = nameSchema(
  'Brand',
  Type.Object(
    {
      id: Type.Integer({ description: 'The brand_id of GET /v1/nfe-received.' }),
      name: Type.String(),
      fantasy_name: text,
      cnpj: Type.Union([Type.String(), Type.Null()], { description: 'Text, leading zeros kept.' }),
      is_default: Type.Boolean({ description: 'The brand the NF-e list uses without brand_id.' }),
      fiscal_configured: Type.Boolean({
        description: 'Whether the brand has a fiscal provider credential (else the NF-e detail is 503).',
      }),
    },
    { additionalProperties: false },
  ),
);

export const BrandList = Type.Object(
  { data: Type.Array(Brand, { description: 'In id order; deleted brands are left out.' }) },
  { additionalProperties: false },
);

export function brandRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/brands',
    {
      config: { scope: 'nfe-received:read' },
      schema: {
        summary: "The restaurant's brands, to choose the brand_id of the NF-e list",
        operationId: 'listBrands',
        tags: ['nfe-received'],
        querystring: Type.Object({ restaurant_id: restaurantIdParameter() }, { additionalProperties: false }),
        response: { 200: BrandList },
      },
    },
    async (request) => ({ data: await listBrands(app.ctx.db, request.restaurantId) }),
  );
}
