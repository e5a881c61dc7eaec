// /v1/webhook-endpoints: scope webhooks:write for changes, webhooks:read for reads.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { IDEMPOTENCY_ERROR_KEYS, IdempotencyHeaders, idempotentWrite } from '../../http/idempotency.ts';
import { RestaurantQuery } from '../catalog/schemas.ts';
import * as service from './endpoint-service.ts';
import {
  CreateEndpointBody,
  DeliveriesQuery,
  DeliveryList,
  Endpoint,
  EndpointList,
  EndpointParams,
  EndpointWithSecret,
  TestQueued,
} from './schemas.ts';

const NOT_FOUND = ['webhook_endpoint_not_found'];

export async function webhookRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, secrets } = app.ctx;
  // The key as it is now: a rotation over the admin channel replaces it in ctx.secrets.
  const keys = {
    get secretKey() {
      return secrets.fiscalTokenKey;
    },
    allowPrivate: config.webhookAllowPrivate,
  };
  const tags = ['Events'];

  app.post(
    '/v1/webhook-endpoints',
    {
      config: { scope: 'webhooks:write', errorKeys: ['webhook_endpoint_limit'] },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Subscribe a URL to event types; answers the signing secret once',
        description:
          'Every event of the listed types is POSTed to the URL, signed per Standard Webhooks. The URL must be ' +
          'https on a public host. The credential needs the read scope of each event type; the endpoint is ' +
          'disabled once the credential loses the restaurant (revoked, expired, or the restaurant removed). ' +
          `A restaurant has at most ${service.MAX_ENDPOINTS} endpoints.`,
        querystring: RestaurantQuery,
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecret },
      },
    },
    async (request, reply) => {
      const created = await service.createEndpoint(
        db,
        request.restaurantId,
        request.principal!,
        request.body,
        keys,
      );
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/webhook-endpoints',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: "The restaurant's webhook endpoints",
        querystring: RestaurantQuery,
        response: { 200: EndpointList },
      },
    },
    async (request) => service.listEndpoints(db, request.restaurantId),
  );

  app.get(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: { scope: 'webhooks:read', errorKeys: NOT_FOUND },
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'One webhook endpoint; `status` says whether it was disabled and why',
        params: EndpointParams,
        querystring: RestaurantQuery,
        response: { 200: Endpoint },
      },
    },
    async (request) => service.getEndpoint(db, request.restaurantId, request.params.webhookEndpointId),
  );

  app.delete(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: {
        scope: 'webhooks:write',
        errorKeys: [...NOT_FOUND, 'idempotency_key_in_use', ...IDEMPOTENCY_ERROR_KEYS],
      },
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags,
        summary: 'Delete a webhook endpoint and its pending deliveries',
        description:
          'Sent again with the same Idempotency-Key (as the TypeScript client retries it), a deletion that ' +
          'was applied is answered 204 again, not 404.',
        params: EndpointParams,
        querystring: RestaurantQuery,
        headers: IdempotencyHeaders,
        response: { 204: { type: 'null', description: 'Deleted.' } },
      },
    },
    async (request, reply) => {
      const { restaurantId, params } = request;
      await idempotentWrite(request, reply, db, config.idempotencyTtlSeconds, async (trx) => {
        await service.removeEndpoint(trx, restaurantId, params.webhookEndpointId);
        return { status: 204, body: '' };
      });
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/v1/webhook-endpoints/:webhookEndpointId/deliveries',
    {
      config: { scope: 'webhooks:read', errorKeys: NOT_FOUND },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "The endpoint's newest deliveries, each with its attempts",
        description:
          'Each attempt: when, the HTTP status (null when none came), how long it took, the error if any and ' +
          'the first 1 KB of the answer.',
        params: EndpointParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveryList },
      },
    },
    async (request) =>
      service.endpointDeliveries(
        db,
        request.restaurantId,
        request.params.webhookEndpointId,
        request.query.limit,
      ),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/test',
    {
      config: { scope: 'webhooks:write', errorKeys: [...NOT_FOUND, 'webhook_endpoint_disabled'] },
      schema: {
        operationId: 'testWebhookEndpoint',
        tags,
        summary: 'Queue a `ping` event to the endpoint',
        description: 'Delivered like any event (signed, retried); follow it in the deliveries.',
        params: EndpointParams,
        querystring: RestaurantQuery,
        response: { 202: TestQueued },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await service.sendTestEvent(db, request.restaurantId, request.params.webhookEndpointId)),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/enable',
    {
      config: { scope: 'webhooks:write', errorKeys: NOT_FOUND },
      schema: {
        operationId: 'enableWebhookEndpoint',
        tags,
        summary: 'Enable an endpoint again, after it was disabled',
        description:
          'Ends its failing streak (its 3 days start again). A disabled endpoint enabled again is handed the ' +
          'events of changes made after this call, not those of the time it was disabled: read them from ' +
          '`GET /v1/events`. A disabled endpoint enabled again belongs to the caller: it is disabled once the ' +
          'caller loses the restaurant. The credential needs the read scope of each of its event types. An ' +
          'enabled endpoint is answered as it is.',
        params: EndpointParams,
        querystring: RestaurantQuery,
        response: { 200: Endpoint },
      },
    },
    async (request) =>
      service.enableEndpoint(db, request.restaurantId, request.params.webhookEndpointId, request.principal!),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/rotate-secret',
    {
      config: { scope: 'webhooks:write', errorKeys: NOT_FOUND },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'Replace the signing secret; each replaced one keeps signing for 24 hours',
        description:
          'Answers the new secret once. Each secret replaced in the last 24 hours keeps signing until its own 24 hours end, the 5 most recently replaced at most (a sixth rotation within 24 hours ends the oldest at once): a delivery carries one signature per signing secret, separated by spaces, until `previous_secret_expires_at`.',
        params: EndpointParams,
        querystring: RestaurantQuery,
        response: { 200: EndpointWithSecret },
      },
    },
    async (request) =>
      service.rotateEndpointSecret(db, request.restaurantId, request.params.webhookEndpointId, keys),
  );
}
