// GET /v1/products (legacy listing) and GET /v1/products/{productId} (scope products:read).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { getProduct, listCatalog } from './product-service.ts';
import { Catalog, Product } from './response-schemas.ts';
import { ProductParams, RestaurantQuery } from './schemas.ts';

const scope = 'products:read' as const;

export function readRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/products',
    {
      config: { scope },
      schema: {
        summary: 'Categories with their products (legacy shape)',
        description:
          'Every non-removed category (packaging and marketplace mirrors included) by position then id, ' +
          'each with its non-removed products and their fiscal projection.',
        querystring: RestaurantQuery,
        response: { 200: Catalog },
      },
    },
    async (request) => listCatalog(app.ctx.db, request.restaurantId),
  );

  app.get(
    '/v1/products/:productId',
    {
      config: { scope, errorKeys: ['product_not_found'] },
      schema: {
        summary: 'One product with its fiscal projection',
        params: ProductParams,
        querystring: RestaurantQuery,
        response: { 200: Product },
      },
    },
    async (request) => getProduct(app.ctx.db, request.restaurantId, request.params.productId),
  );
}
