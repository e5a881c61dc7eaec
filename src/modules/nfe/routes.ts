// GET /v1/nfe-received and GET /v1/nfe-received/info/{nfe_received_id} (contract 4.10, 4.11),
// and GET /v1/brands (brand-routes.ts).
// The swagger types add `summary` and `tags` to route schemas.
import type {} from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { versionTag } from '../../http/conditional.ts';
import { sendJson } from '../../http/json-reply.ts';
import { createSlots } from '../../lib/slots.ts';
import { brandRoutes } from './brand-routes.ts';
import { createDetailPool } from './detail-pool.ts';
import { NfeDetailResponse } from './detail-schema.ts';
import { createNfeListReader } from './list-cache.ts';
import {
  ErrorResponse,
  NfeDetailParams,
  NfeDetailQuery,
  NfeListQuery,
  type NfeListQuerystring,
  NfeListResponse,
} from './nfe-schema.ts';
import { getReceivedNfe } from './nfe-service.ts';
import { PROVIDER_CONCURRENCY } from './provider-client.ts';

const commonErrors = {
  400: ErrorResponse,
  401: ErrorResponse,
  403: ErrorResponse,
  404: ErrorResponse,
  429: ErrorResponse,
  500: ErrorResponse,
  503: ErrorResponse,
};

export async function nfeRoutes(app: FastifyInstance): Promise<void> {
  const readList = createNfeListReader(app.ctx.db, app.ctx.config.cacheBytes.nfeList);
  const providerSlots = createSlots(PROVIDER_CONCURRENCY);
  const detailPool = createDetailPool({ workers: app.ctx.config.nfeDetailWorkers });
  app.addHook('onClose', () => detailPool.close());
  brandRoutes(app);
  app.get<{ Querystring: NfeListQuerystring }>(
    '/v1/nfe-received',
    {
      config: {
        scope: 'nfe-received:read',
        errorKeys: ['brand_not_found', 'data_validation_failed'],
        etag: versionTag('nfe_version'),
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
        response: { 200: NfeListResponse, ...commonErrors },
      },
    },
    async (request, reply) => {
      // Already JSON bytes, written without the schema serialiser (list-body.ts says why) and kept
      // per nfe_version (list-cache.ts).
      const body = await readList(request.restaurant, request.query);
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
        querystring: NfeDetailQuery,
        response: { 200: NfeDetailResponse, ...commonErrors, 502: ErrorResponse },
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
      // JSON text already (nfe-map.ts receivedNfeDetailBody); the response schema documents it.
      return sendJson(reply, detail);
    },
  );
}
