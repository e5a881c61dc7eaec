// POST /v1/products, PUT /v1/products/{productId}, PUT /v1/products/bulk,
// PATCH /v1/products/{productId}/availability (scope products:write).
// Error responses are documented from config.errorKeys (src/http/docs-operation.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../http/errors.ts';
import {
  type Answer,
  IDEMPOTENCY_ERROR_KEYS,
  IdempotencyHeaders,
  idempotentWrite,
  render,
} from '../../http/idempotency.ts';
import { replyBranch, sendJson, sendRenderedJson } from '../../http/json-reply.ts';
import { ConflictError, DryRunResult, EditQuery } from './change-review-schemas.ts';
import { previewBulkEdit, previewEdit } from './dry-run.ts';
import { bulkEditProducts, createProduct, editProduct, setAvailability } from './product-service.ts';
import {
  CREATE_ONLY_REJECTS,
  rejectIdOnlyEdit,
  rejectReadOnly,
  SINGLE_EDIT_REJECTS,
} from './read-only-fields.ts';
import { Product } from './response-schemas.ts';
import {
  AvailabilityBody,
  BulkBody,
  CreateBody,
  EditBody,
  ProductParams,
  RestaurantQuery,
} from './schemas.ts';

const scope = 'products:write' as const;
// On the edits, idempotency_key_in_use shares the 409 (and its UpdateConflict body, without
// conflicts) with product_update_conflict.
const EDIT_KEYS = [
  'product_changes_required',
  'product_not_found',
  'product_category_not_found',
  'idempotency_key_in_use',
  ...IDEMPOTENCY_ERROR_KEYS,
];

/** An edit without a body is an edit without a change. */
async function requireChanges(request: FastifyRequest) {
  if (request.body === undefined || request.body === null) throw errors.productChangesRequired();
}

/** Sends a write's answer: made now, or replayed for its Idempotency-Key. */
function sendAnswer(reply: FastifyReply, { status, body }: Answer): FastifyReply {
  reply.code(status);
  return typeof body === 'string' ? sendJson(reply, body) : sendRenderedJson(reply, body);
}

export function writeRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const once = (request: FastifyRequest, reply: FastifyReply, write: Parameters<typeof idempotentWrite>[4]) =>
    idempotentWrite(request, reply, app.ctx.db, app.ctx.config.idempotencyTtlSeconds, write);

  app.post(
    '/v1/products',
    {
      config: {
        scope,
        errorKeys: ['product_category_not_found', 'idempotency_key_in_use', ...IDEMPOTENCY_ERROR_KEYS],
      },
      preValidation: rejectReadOnly(CREATE_ONLY_REJECTS),
      schema: {
        summary: 'Create a product',
        operationId: 'createProduct',
        description:
          'Required: name, product_category_id, price (> 0). Omitted fields take the defaults of the contract; ' +
          'the product goes to the end of its category and takes the category brand.',
        querystring: RestaurantQuery,
        headers: IdempotencyHeaders,
        body: CreateBody,
        response: { 201: Product },
      },
    },
    async (request, reply) => {
      const { restaurantId, body, principal } = request;
      const answer = await once(request, reply, async (db) => ({
        status: 201,
        body: render(reply, Product, await createProduct(db, restaurantId, body, principal!)),
      }));
      return sendAnswer(reply, answer);
    },
  );

  // Registered as a static path, so "bulk" is never read as a {productId}.
  app.put(
    '/v1/products/bulk',
    {
      config: { scope, errorKeys: [...EDIT_KEYS, 'duplicate_product_ids', 'product_update_conflict'] },
      preValidation: rejectReadOnly(),
      schema: {
        summary: 'Edit 1 to 100 products atomically',
        operationId: 'bulkEditProducts',
        description:
          'A bare array; each object has an id and partial edit fields. Any invalid object, missing product or ' +
          'category, or stale expected_updated_at rejects the whole batch (a 409 lists every stale object). ' +
          'Products come back in the order received. With `dry_run=true`: the same checks and errors, nothing ' +
          'written, and the answer is the review of each product (current, proposed, changes).',
        querystring: EditQuery,
        headers: IdempotencyHeaders,
        body: BulkBody,
        response: { 200: Type.Union([Type.Array(Product), DryRunResult]), 409: ConflictError },
      },
    },
    async (request, reply) => {
      const { restaurantId, body, principal, query } = request;
      if (query.dry_run === true)
        return replyBranch(reply, DryRunResult, await previewBulkEdit(app.ctx.db, restaurantId, body));
      const answer = await once(request, reply, async (db) => ({
        status: 200,
        body: await bulkEditProducts(db, restaurantId, body, principal!),
      }));
      return sendAnswer(reply, answer);
    },
  );

  app.put(
    '/v1/products/:productId',
    {
      config: { scope, errorKeys: [...EDIT_KEYS, 'product_update_conflict'] },
      preValidation: [requireChanges, rejectIdOnlyEdit, rejectReadOnly(SINGLE_EDIT_REJECTS)],
      schema: {
        summary: 'Edit a product',
        operationId: 'editProduct',
        description:
          'Partial: omitted fields keep their value; null clears description, the optional prices and single ' +
          'fiscal_info attributes. expected_updated_at guards against concurrent edits (409). With ' +
          '`dry_run=true`: the same checks and errors, nothing written, and the answer is the review ' +
          '(current, proposed, changes, expected_updated_at).',
        params: ProductParams,
        querystring: EditQuery,
        headers: IdempotencyHeaders,
        body: EditBody,
        response: { 200: Type.Union([Product, DryRunResult]), 409: ConflictError },
      },
    },
    async (request, reply) => {
      const { restaurantId, params, body, principal, query } = request;
      if (query.dry_run === true)
        return replyBranch(
          reply,
          DryRunResult,
          await previewEdit(app.ctx.db, restaurantId, params.productId, body),
        );
      const answer = await once(request, reply, async (db) => ({
        status: 200,
        body: render(reply, Product, await editProduct(db, restaurantId, params.productId, body, principal!)),
      }));
      return sendAnswer(reply, answer);
    },
  );

  app.patch(
    '/v1/products/:productId/availability',
    {
      config: {
        scope,
        errorKeys: [
          'product_changes_required',
          'product_not_found',
          'idempotency_key_in_use',
          ...IDEMPOTENCY_ERROR_KEYS,
        ],
      },
      preValidation: requireChanges,
      schema: {
        summary: 'Change in-store and/or delivery availability',
        operationId: 'setProductAvailability',
        description: 'available and/or available_in_delivery, independent; sold_off is edited with PUT.',
        params: ProductParams,
        querystring: RestaurantQuery,
        headers: IdempotencyHeaders,
        body: AvailabilityBody,
        response: { 200: Product },
      },
    },
    async (request, reply) => {
      const { restaurantId, params, body, principal } = request;
      const answer = await once(request, reply, async (db) => ({
        status: 200,
        body: render(
          reply,
          Product,
          await setAvailability(db, restaurantId, params.productId, body, principal!),
        ),
      }));
      return sendAnswer(reply, answer);
    },
  );
}
