// The NF-e sequence of contract 4: GET /v1/brands (choose a brand), GET /v1/nfe-received (its
// notes, 4.10) and GET /v1/nfe-received/info/{nfe_received_id} (one note, 4.11).
import type { FastifyInstance } from 'fastify';
import { versionTag } from '../../http/conditional.ts';
import { sendJson, sendRenderedJson } from '../../http/json-reply.ts';
import { createSlots } from '../../lib/slots.ts';
import { createDetailPool } from './detail-pool.ts';
import { NfeDetailResponse } from './detail-schema.ts';
import { createNfeListReader } from './list-cache.ts';
import { parseNfeListQuery } from './list-query.ts';
import { listBrands } from './nfe-repository.ts';
import {
  BrandList,
  NfeDetailParams,
  NfeListQuery,
  type NfeListQuerystring,
  NfeListResponse,
  RestaurantQuery,
} from './nfe-schema.ts';
import { getReceivedNfe } from './nfe-service.ts';
import { PROVIDER_CONCURRENCY } from './provider-client.ts';

export async function nfeRoutes(app: FastifyInstance): Promise<void> {
  const readList = createNfeListReader(app.ctx.db, app.ctx.config.cacheBytes.nfeList);
  const providerSlots = createSlots(PROVIDER_CONCURRENCY);
  const detailPool = createDetailPool({ workers: app.ctx.config.nfeDetailWorkers });
  app.addHook('onClose', () => detailPool.close());
  app.get(
    '/v1/brands',
    {
      config: { scope: 'nfe-received:read' },
      schema: {
        summary: "The restaurant's brands, to choose the brand_id of the NF-e list",
        operationId: 'listBrands',
        tags: ['nfe-received'],
        querystring: RestaurantQuery,
        response: { 200: BrandList },
      },
    },
    async (request) => ({ data: await listBrands(app.ctx.db, request.restaurantId) }),
  );
  app.get<{ Querystring: NfeListQuerystring }>(
    '/v1/nfe-received',
    {
      config: {
        scope: 'nfe-received:read',
        errorKeys: ['brand_not_found', 'data_validation_failed'],
        // Tagged by the period and filters as the list reads them (instants to the second, pendente
        // absent is false): one tag per answer.
        etag: versionTag('nfe_version', (request) => parseNfeListQuery(request.query as NfeListQuerystring)),
      },
      schema: {
        summary: 'Authorized received NF-e of a period and a brand, from the local base (no pagination)',
        operationId: 'listReceivedNfe',
        description:
          'Only notes authorized and not canceled locally, ordered by issue date then id. The whole period in one ' +
          'array, at most 92 days: split long periods. Without brand_id: the default brand (or the first by id), ' +
          'including the notes without a brand. Use the internal `id` of a note for its detail.',
        tags: ['nfe-received'],
        querystring: NfeListQuery,
        response: { 200: NfeListResponse },
      },
    },
    async (request, reply) => {
      // Already JSON bytes, written without the schema serialiser (list-body.ts says why) and kept
      // per nfe_version (list-cache.ts).
      const { body, current } = await readList(request.restaurant, request.query);
      // Read at a later nfe_version than its tag's (a write landed meanwhile): no tag to keep.
      if (!current) reply.removeHeader('etag');
      return sendJson(reply, body);
    },
  );

  app.get<{ Params: { nfe_received_id: number } }>(
    '/v1/nfe-received/info/:nfe_received_id',
    {
      config: {
        scope: 'nfe-received:read',
        errorKeys: [
          'nfe_not_found',
          'data_validation_failed',
          'fiscal_upstream_error',
          'fiscal_not_configured',
        ],
      },
      schema: {
        summary: 'One received NF-e, enriched from the fiscal provider (no cache, no manifestation)',
        operationId: 'getReceivedNfe',
        description:
          'The path id is the internal record id, not the access key. The fiscal provider is queried by the ' +
          'server with the brand credential; when it holds only the summary, `invoice` and `protocol` are null. ' +
          'Provider values keep their text and precision.',
        tags: ['nfe-received'],
        params: NfeDetailParams,
        querystring: RestaurantQuery,
        response: { 200: NfeDetailResponse },
      },
    },
    async (request, reply) => {
      const detail = await getReceivedNfe(
        app.ctx,
        request.restaurantId,
        request.params.nfe_received_id,
        request.log,
        providerSlots,
        detailPool,
      );
      // JSON bytes already (nfe-map.ts receivedNfeDetailBody), freed once written; the response
      // schema documents them.
      return sendRenderedJson(reply, detail);
    },
  );
}
