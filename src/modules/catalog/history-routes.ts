// GET /v1/products/{productId}/history (scope products:read).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { versionTag } from '../../http/conditional.ts';
import { HistoryPage, HistoryQuery } from './change-review-schemas.ts';
import { productHistory } from './history-service.ts';
import { ProductParams } from './schemas.ts';

export function historyRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/v1/products/:productId/history',
    {
      config: {
        scope: 'products:read',
        errorKeys: ['product_not_found'],
        etag: versionTag('catalog_version'),
      },
      schema: {
        summary: 'The change log of a product, newest first',
        operationId: 'getProductHistory',
        description:
          'Every change recorded by the catalog writes (create, edit, bulk, availability): when, which ' +
          'credential (API key id and name, OAuth client id, or a restaurant session; never a secret) and ' +
          'the changed fields ({field, from, to}; money as two-decimal strings, fiscal attributes as ' +
          'fiscal_info.<attribute>). Writes that changed nothing and dry runs are not recorded. Pages by ' +
          '`cursor` (the previous `next_cursor`) and `limit` (1-100, default 50). A removed product or one ' +
          'of another restaurant is 404, as on the detail route.',
        params: ProductParams,
        querystring: HistoryQuery,
        response: { 200: HistoryPage },
      },
    },
    async (request) =>
      productHistory(app.ctx.db, request.restaurantId, request.params.productId, request.query),
  );
}
