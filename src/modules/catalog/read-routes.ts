// GET /v1/products (legacy listing) and GET /v1/products/{productId} (scope products:read).
// Both may answer with JSON rendered ahead (read-service.ts): the response schemas document it,
// serialise what is not, and the tests hold the bytes to them.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { versionTag } from '../../http/conditional.ts';
import { sendJson } from '../../http/json-reply.ts';
import { createCatalogReader } from './read-service.ts';
import { Catalog, Product } from './response-schemas.ts';
import { ProductParams, RestaurantQuery } from './schemas.ts';

const scope = 'products:read' as const;

export function readRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // One reader (and listing cache) per app instance; other instances learn of writes through catalog_version.
  const reader = createCatalogReader(app.ctx.db, app.ctx.config.cacheBytes.listing);

  app.get(
    '/v1/products',
    {
      config: { scope, etag: versionTag('catalog_version') },
      schema: {
        summary: 'Categories with their products (legacy shape)',
        operationId: 'listProducts',
        description:
          'Every non-removed category (packaging and marketplace mirrors included) by position then id, ' +
          'each with its non-removed products and their fiscal projection.',
        querystring: RestaurantQuery,
        response: { 200: Catalog },
      },
    },
    async (request, reply) => {
      const body = await reader.listing(request.restaurant);
      return sendJson(reply, body);
    },
  );

  app.get(
    '/v1/products/:productId',
    {
      config: { scope, errorKeys: ['product_not_found'], etag: versionTag('catalog_version') },
      schema: {
        summary: 'One product with its fiscal projection',
        operationId: 'getProduct',
        params: ProductParams,
        querystring: RestaurantQuery,
        response: { 200: Product },
      },
    },
    async (request, reply) => {
      const product = await reader.product(request.restaurant, request.params.productId);
      return Buffer.isBuffer(product) ? sendJson(reply, product) : product;
    },
  );
}
