// GET /v1/menu (scope menu:read): categories and products with the price and availability
// resolved for a channel at an instant (contract 2.4 and 4.8, design menu.md).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { JSON_TYPE } from '../../http/json-reply.ts';
import { createBoundaryCache } from './boundary-cache.ts';
import { createCatalogCache } from './catalog-cache.ts';
import { MenuBody } from './menu-body.ts';
import { type MenuQuery, menuQuery, menuResponse } from './schemas.ts';
import { createMenuService } from './service.ts';

export async function menuRoutes(app: FastifyInstance): Promise<void> {
  // One cache per app instance; other instances learn of writes through catalog_version.
  const { cacheBytes } = app.ctx.config;
  const menu = createMenuService(
    app.ctx.db,
    createCatalogCache(cacheBytes.menu),
    createBoundaryCache(cacheBytes.menuBoundaries),
  );
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/v1/menu',
    {
      config: {
        scope: 'menu:read',
        // A conditional read's tag needs no catalog: a 304 loads none (service.ts).
        etag: (request) =>
          menu.tag(
            request.restaurant,
            request.query as MenuQuery,
            request.headers['if-none-match'] !== undefined,
          ),
      },
      schema: {
        summary: 'The menu with price and availability resolved for a channel',
        operationId: 'listMenu',
        querystring: menuQuery,
        response: { 200: menuResponse },
      },
    },
    async (request, reply) => {
      reply.type(JSON_TYPE);
      // A client taking gzip, of a menu this instance keeps gzipped for the tag: no catalog.
      const kept = app.keptSplit(request, reply, () => menu.head(request.restaurant, request.query));
      if (kept) return reply.send(kept as never);
      const plan = await menu.read(request.restaurant, request.query);
      // Already JSON (catalog.ts says why), written as the socket takes it: menuResponse
      // documents it and the tests hold it to it.
      reply.header('content-length', plan.length);
      return reply.send(new MenuBody(plan) as never);
    },
  );
}
