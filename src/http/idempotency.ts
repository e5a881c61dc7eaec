// Idempotency-Key on writes (IETF draft httpapi-idempotency-key-header, Stripe's semantics). The
// first request with a key runs; its answer is stored, per credential, in the write's own
// transaction, so the write and its answer commit together or not at all. A later request of the
// same credential with the same key and the same method, URL, restaurant and body gets that
// answer again with `Idempotent-Replayed: true` and writes nothing; with another request it is 422
// idempotency_key_reused; while the first still runs it is 409 idempotency_key_in_use (a
// transaction-level advisory lock, so instances agree). An answer with an error stores nothing:
// nothing was written, and the same key may be sent again. Keys expire after
// IDEMPOTENCY_TTL_SECONDS (24 h).
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type TSchema, Type } from 'typebox';
import type { Db } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';
import { errors } from './errors.ts';
import { principalKey } from './principal.ts';

/** The header as the OpenAPI document states it (the value is checked here, KEY). */
export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'Makes the write safe to retry: the same key with the same request within 24 h replays the first ' +
        'answer (Idempotent-Replayed: true) and writes nothing. 1 to 255 visible ASCII characters, e.g. a UUID; ' +
        'anything else is 400 invalid_idempotency_key. The same key with another request is 422 ' +
        'idempotency_key_reused; while the first request with it still runs, 409 idempotency_key_in_use ' +
        'with Retry-After.',
    }),
  ),
});

/** The error keys a route that applies Idempotency-Key adds to its own (and 409 idempotency_key_in_use). */
export const IDEMPOTENCY_ERROR_KEYS = ['invalid_idempotency_key', 'idempotency_key_reused'];

/** A write's answer: its status and its JSON, already serialised. */
export type Answer = { status: number; body: string | Buffer };

/** Visible ASCII, as the draft's examples; 255 characters at most. */
const KEY = /^[\x21-\x7e]{1,255}$/;

const lockKey = prepared<{ locked: boolean }>(
  'select pg_try_advisory_xact_lock(hashtextextended($1, 0)) as locked',
);
const findAnswer = prepared<{ request_hash: string; status: number; body: string }>(
  `select request_hash, status, body from idempotency_keys
   where credential = $1 and key = $2 and expires_at > now()`,
);
const forgetExpired = prepared('delete from idempotency_keys where credential = $1 and expires_at <= now()');
const storeAnswer = prepared(
  `insert into idempotency_keys (credential, key, request_hash, status, body, expires_at)
   values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))
   on conflict (credential, key) do update set request_hash = excluded.request_hash,
     status = excluded.status, body = excluded.body, created_at = now(), expires_at = excluded.expires_at`,
);

/** The answer serialised by a response schema of the route (the bytes Fastify would send). */
export function render(reply: FastifyReply, schema: TSchema, payload: unknown): string {
  return reply.compileSerializationSchema(
    schema as Record<string, unknown>,
    '200',
  )(payload as Record<string, unknown>);
}

export async function idempotentWrite(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Db,
  ttlSeconds: number,
  write: (db: Db) => Promise<Answer>,
): Promise<Answer> {
  const key = request.headers['idempotency-key'];
  if (key === undefined) return write(db);
  if (typeof key !== 'string' || !KEY.test(key)) throw errors.invalidIdempotencyKey();
  const credential = principalKey(request.principal!);
  const hash = createHash('sha256')
    // The restaurant too: a key's one restaurant (never in its URL) can change within the 24 h.
    .update(
      `${request.method} ${request.url} ${request.restaurantId}\n${JSON.stringify(request.body ?? null)}`,
    )
    .digest('base64url');
  return db.transaction().execute(async (trx) => {
    const [{ locked }] = (await lockKey(trx, [`${credential}\n${key}`])).rows;
    if (!locked) throw errors.idempotencyKeyInUse();
    const [stored] = (await findAnswer(trx, [credential, key])).rows;
    if (stored) {
      if (stored.request_hash !== hash) throw errors.idempotencyKeyReused();
      reply.header('idempotent-replayed', 'true');
      return { status: stored.status, body: stored.body };
    }
    const answer = await write(trx);
    await forgetExpired(trx, [credential]);
    await storeAnswer(trx, [credential, key, hash, answer.status, answer.body.toString(), ttlSeconds]);
    return answer;
  });
}
