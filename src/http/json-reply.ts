// JSON answers that do not go through a route's own serialiser: bodies rendered to UTF-8 ahead
// (the listing, the menu, cash flows, NF-e, product writes; each held by tests to the bytes the
// response schema's serialiser writes), and the branches of a union.
import type { FastifyReply } from 'fastify';
import type { TSchema } from 'typebox';
import { releaseBuffer } from '../lib/release-buffer.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A body already rendered as UTF-8 JSON, sent as it is. */
export const sendJson = (reply: FastifyReply, body: Buffer | string): FastifyReply =>
  reply.type(JSON_TYPE).send(body);

/**
 * A body rendered for this one answer (no cache holds it), sent, then freed as soon as the
 * response has been written: 'finish' comes after the socket's last write callback, when the
 * kernel has every byte and nothing reads the buffer any more (release-buffer.ts says why). A
 * response cut short ends without 'finish' and leaves its body to the collector.
 */
export function sendRenderedJson(reply: FastifyReply, body: Buffer): FastifyReply {
  renderedOnce.add(body);
  reply.raw.once('finish', () => releaseBuffer(body));
  return sendJson(reply, body);
}

/**
 * Bodies of sendRenderedJson: compression.ts leaves them to @fastify/compress, which compresses a
 * large one in zlib's thread pool rather than on the event loop, and keeps nothing.
 */
export const renderedOnce = new WeakSet<Buffer>();

/**
 * An answer of a route whose 200 is a union (an edit answers the product, or with ?dry_run=true
 * its review), serialised by its own branch's schema. fast-json-stringify serialises a union by
 * validating the whole answer with ajv against each branch until one matches. The union stays in
 * the route's schema for the OpenAPI document: the branch is known where the answer is made.
 */
export function replyBranch(reply: FastifyReply, schema: TSchema, payload: unknown): FastifyReply {
  // Compiled once per route and schema (Fastify caches it on the route's context). A reply with
  // its own serialiser gets no content type from Fastify: it is set here.
  const serialize = reply.compileSerializationSchema(schema as Record<string, unknown>, '200');
  return reply.type(JSON_TYPE).serializer(serialize).send(payload);
}
