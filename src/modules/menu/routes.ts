// GET /v1/menu (scope menu:read): categories and products with the price and availability
// resolved for a channel at an instant (contract 2.4 and 4.8, design menu.md).
import { Readable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { createCatalogCache } from './catalog-cache.ts';
import { menuQuery, menuResponse } from './schemas.ts';
import { createMenuService } from './service.ts';

export async function menuRoutes(app: FastifyInstance): Promise<void> {
  // One cache per app instance; other instances learn of writes through catalog_version.
  const menu = createMenuService(app.ctx.db, createCatalogCache());
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/menu',
    {
      config: { scope: 'menu:read' },
      schema: {
        summary: 'The menu with price and availability resolved for a channel',
        querystring: menuQuery,
        response: { 200: menuResponse },
      },
    },
    async (request, reply) => {
      const parts = await menu.read(request.restaurantId, request.query);
      // Already JSON (catalog.ts says why), written piece by piece: menuResponse documents it and
      // the tests hold it to it.
      const length = parts.reduce((sum, part) => sum + part.length, 0);
      reply.type('application/json; charset=utf-8').header('content-length', length);
      const body = new Readable({
        read() {
          for (const part of parts) this.push(part);
          this.push(null);
        },
      });
      return reply.send(body as never);
    },
  );
}
