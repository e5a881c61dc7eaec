// A route whose 200 is a union (an edit answers the product(s), or with ?dry_run=true their
// review) sends each answer through its own branch's serialiser. fast-json-stringify serialises a
// union by validating the whole answer with ajv against each branch until one matches: for a
// 100-product bulk edit that check cost as much as the serialisation itself (0.6 ms). The union
// stays in the route's schema for the OpenAPI document; the branch is known where the answer is made.

import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';

export function replyBranch(reply: FastifyReply, schema: TSchema, payload: unknown): FastifyReply {
  // Compiled once per route and schema (Fastify caches it on the route's context).
  return reply
    .serializer(reply.compileSerializationSchema(schema as Record<string, unknown>, '200'))
    .send(payload);
}
