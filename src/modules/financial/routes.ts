// GET /v1/financial/cash-flows (contract 4.9): schema + one service call.
import type { FastifyInstance } from 'fastify';
import { versionTag } from '../../http/conditional.ts';
import { sendJson } from '../../http/json-reply.ts';
import { parseCashFlowQuery } from './cash-flows-query.ts';
import {
  CashFlowsQuery,
  type CashFlowsQuerystring,
  CashFlowsResponse,
  ErrorResponse,
} from './cash-flows-schema.ts';
import { createCashFlowCaches, createCashFlowService } from './cash-flows-service.ts';

export async function financialRoutes(app: FastifyInstance): Promise<void> {
  const cashFlows = createCashFlowService(
    app.ctx.db,
    createCashFlowCaches(app.ctx.config.cacheBytes.cashFlows),
  );
  app.get<{ Querystring: CashFlowsQuerystring }>(
    '/v1/financial/cash-flows',
    {
      config: {
        scope: 'financial:read',
        // Tagged by the query as the listing reads it (defaults applied): one tag per answer.
        etag: versionTag('cash_flow_version', (request) =>
          parseCashFlowQuery(request.query as CashFlowsQuerystring),
        ),
      },
      schema: {
        summary: 'Financial entries (payables and receivables) of a period, 100 main entries a page',
        operationId: 'listCashFlows',
        description:
          'At most 92 calendar days. Pages hold 100 main entries: add 100 to `offset` while `remaining` > 0. ' +
          'Invoices and grouped titles are main entries whose value already equals the sum of their `items`: ' +
          'sum main entries (or use `totals`, which cover the whole period with its filters), never both levels; ' +
          'for cost-centre analysis use the entries with `counts_for_result: true`, including those in `items`.',
        tags: ['financial'],
        querystring: CashFlowsQuery,
        response: {
          200: CashFlowsResponse,
          400: ErrorResponse,
          401: ErrorResponse,
          403: ErrorResponse,
          429: ErrorResponse,
          500: ErrorResponse,
          503: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      // Rendered by the 200 schema's serialiser (reply.serialize), then kept and sent as bytes.
      const body = await cashFlows.list(request.restaurant, request.query, (page) =>
        String(reply.serialize(page)),
      );
      return sendJson(reply, body);
    },
  );
}
