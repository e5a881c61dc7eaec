// SQL of webhook endpoints, their deliveries and attempts; every query is scoped by the restaurant.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { PreviousSecret } from '../../db/types.ts';
import { isEventType, reads } from '../events/event-types.ts';
import { ISO_INSTANT } from '../events/outbox.ts';
import { SUBSCRIBED } from './fanout.ts';

const ENDPOINT_COLUMNS = [
  'id',
  'url',
  'events',
  'description',
  'disabled_at',
  'disabled_reason',
  'previous_secret_expires_at',
  'created_at',
] as const;

export type EndpointRow = {
  id: number;
  url: string;
  events: string[];
  description: string;
  disabled_at: Date | null;
  disabled_reason: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
};

/**
 * The credential that creates or enables an endpoint, and the access token it calls with: the
 * endpoint is disabled once the credential loses the restaurant (migration 0021) or the read scope
 * of one of its types (0022). Null for a restaurant session: the endpoint is the restaurant's.
 */
export type Creator = { apiKeyId: number | null; oauthClientId: number | null; tokenId: string } | null;

/**
 * Whether the creator still holds the restaurant and may read `events`: its token live, its key
 * unexpired, its key or application neither revoked nor cut off from the restaurant, and holding
 * now the read scope of each type (the token's scopes, checked before, are those of its issue).
 * Asked with the restaurant's row locked, in a statement of its own: a revocation or a loss of
 * scope that locked the row first has committed, and one that comes after waits for this
 * transaction, then disables what it wrote (migrations 0021 and 0022).
 */
async function creatorHolds(
  trx: Db,
  restaurantId: number,
  creator: Creator,
  events: string[],
): Promise<boolean> {
  if (!creator) return true;
  const { rows } = await sql<{ scopes: string[] | null }>`
    select coalesce(k.scopes, c.scopes) as scopes from access_tokens t
    left join api_keys k on k.id = t.api_key_id
    left join oauth_clients c on c.id = t.oauth_client_id
    where t.id = ${creator.tokenId} and t.revoked_at is null and t.expires_at > now()
      and (t.api_key_id is null or (k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
        and exists (select 1 from api_key_restaurants r where r.api_key_id = k.id and r.restaurant_id = ${restaurantId})))
      and (t.oauth_client_id is null or (c.revoked_at is null and exists (select 1
        from oauth_client_restaurants i where i.oauth_client_id = c.id and i.restaurant_id = ${restaurantId})))`.execute(
    trx,
  );
  if (!rows.length) return false;
  // A token of neither (none is issued so) has no credential whose scopes could change.
  const held = rows[0].scopes;
  if (held === null) return true;
  return events.every((type) => !isEventType(type) || reads(held, type));
}

const creatorColumns = (creator: Creator) => ({
  api_key_id: creator?.apiKeyId ?? null,
  oauth_client_id: creator?.oauthClientId ?? null,
});

/**
 * Inserts the endpoint unless the restaurant already has `max` ('limit') or the creator no longer
 * holds the restaurant or the read scope of one of its types ('lost'). The restaurant's row is
 * locked first, so parallel creations of one restaurant count one after another, and so the
 * insert's snapshot (created_snapshot) is taken once every writing transaction of the restaurant
 * that committed first has (migration 0020).
 */
export async function insertEndpoint(
  db: Db,
  restaurantId: number,
  values: { url: string; events: string[]; description: string; secret_encrypted: string },
  max: number,
  creator: Creator,
): Promise<EndpointRow | 'limit' | 'lost'> {
  return inTransaction(db, async (trx) => {
    await trx.selectFrom('restaurants').select('id').where('id', '=', restaurantId).forUpdate().execute();
    const { count } = await trx
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('restaurant_id', '=', restaurantId)
      .executeTakeFirstOrThrow();
    if (Number(count) >= max) return 'limit';
    if (!(await creatorHolds(trx, restaurantId, creator, values.events))) return 'lost';
    return trx
      .insertInto('webhook_endpoints')
      .values({ restaurant_id: restaurantId, ...values, ...creatorColumns(creator) })
      .returning(ENDPOINT_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

export function listEndpoints(db: Db, restaurantId: number): Promise<EndpointRow[]> {
  return db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('restaurant_id', '=', restaurantId)
    .orderBy('id')
    .execute();
}

export function findEndpoint(db: Db, restaurantId: number, id: number): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('restaurant_id', '=', restaurantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteEndpoint(db: Db, restaurantId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('webhook_endpoints')
    .where('restaurant_id', '=', restaurantId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Enables the endpoint again, its failing streak ended. One that was disabled is handed the events
 * of transactions that commit after this one (created_snapshot), as a new endpoint is: not those of
 * the time it was disabled, whose deliveries still pending (handed out as it was disabled) fail;
 * and `creator`, who vouches for it now, becomes its creator. One already enabled is left as it
 * is, so no event waiting to be handed out skips it. The restaurant's row is locked first, as by a
 * creation (migration 0020 says why); undefined when there is no such endpoint, 'lost' when the
 * creator no longer holds the restaurant or the read scope of one of its types.
 */
export function enableEndpoint(
  db: Db,
  restaurantId: number,
  id: number,
  creator: Creator,
): Promise<EndpointRow | undefined | 'lost'> {
  return inTransaction(db, async (trx) => {
    await trx.selectFrom('restaurants').select('id').where('id', '=', restaurantId).forUpdate().execute();
    const found = await trx
      .selectFrom('webhook_endpoints')
      .select(['disabled_at', 'events'])
      .where('restaurant_id', '=', restaurantId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!found) return undefined;
    if (!(await creatorHolds(trx, restaurantId, creator, found.events))) return 'lost';
    if (!found.disabled_at)
      return trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: null })
        .where('id', '=', id)
        .returning(ENDPOINT_COLUMNS)
        .executeTakeFirstOrThrow();
    await trx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', completed_at: sql`now()` })
      .where('endpoint_id', '=', id)
      .where('status', '=', 'pending')
      .execute();
    // A statement of its own, so that its snapshot is taken once the lock is held.
    return trx
      .updateTable('webhook_endpoints')
      .set({
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
        created_xid: sql<string>`pg_current_xact_id()`,
        created_snapshot: sql<string>`pg_current_snapshot()`,
        ...creatorColumns(creator),
      })
      .where('id', '=', id)
      .returning(ENDPOINT_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

/**
 * Stores a new secret; the current one joins the previous secrets, signing until `previousUntil`,
 * beside those replaced before it whose own time has not ended, the newest `keep` of them. The row
 * is locked first, so two rotations at once each keep the other's replaced secret.
 */
export async function rotateSecret(
  db: Db,
  restaurantId: number,
  id: number,
  secretEncrypted: string,
  previousUntil: Date,
  keep: number,
): Promise<EndpointRow | undefined> {
  const now = new Date();
  return inTransaction(db, async (trx) => {
    const row = await trx
      .selectFrom('webhook_endpoints')
      .select(['secret_encrypted', 'previous_secrets'])
      .where('restaurant_id', '=', restaurantId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return undefined;
    const previous: PreviousSecret[] = [
      { secret_encrypted: row.secret_encrypted, expires_at: previousUntil.toISOString() },
      ...row.previous_secrets.filter((secret) => new Date(secret.expires_at) > now),
    ].slice(0, keep);
    return trx
      .updateTable('webhook_endpoints')
      .set({
        secret_encrypted: secretEncrypted,
        previous_secrets: JSON.stringify(previous),
        previous_secret_encrypted: row.secret_encrypted,
        previous_secret_expires_at: previousUntil,
      })
      .where('id', '=', id)
      .returning(ENDPOINT_COLUMNS)
      .executeTakeFirstOrThrow();
  });
}

/**
 * Queues a `ping` event for the endpoint alone (it is no event of the feed); undefined when the
 * endpoint is gone. Its row is held (key share) until the insert commits, so a deletion running
 * beside it either comes first (nothing is queued) or waits and deletes the ping with it.
 */
export async function queuePing(db: Db, restaurantId: number, endpointId: number) {
  const { rows } = await sql<{ id: number; event_id: string }>`
    with endpoint as (
      select id from webhook_endpoints where id = ${endpointId} and restaurant_id = ${restaurantId}
      for key share
    ), ping as (
      select 'evt_' || replace(gen_random_uuid()::text, '-', '') as id, now() as created_at
    )
    insert into webhook_deliveries (endpoint_id, event_id, event_type, payload)
    select endpoint.id, ping.id, 'ping', jsonb_build_object('id', ping.id, 'type', 'ping',
      'restaurant_id', ${restaurantId}::integer,
      'created_at', to_char(ping.created_at at time zone 'UTC', ${ISO_INSTANT}),
      'data', jsonb_build_object('webhook_endpoint_id', endpoint.id))
    from ping, endpoint returning id, event_id`.execute(db);
  return rows.at(0);
}

export type DeliveryRow = {
  id: number;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  completed_at: Date | null;
  attempt_log: {
    attempted_at: string;
    status_code: number | null;
    duration_ms: number;
    error: string | null;
    response_body: string | null;
  }[];
};

/** The endpoint's newest deliveries, each with its attempts in order. */
export async function listDeliveries(db: Db, endpointId: number, limit: number): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    select d.id, d.event_id, d.event_type, d.status, d.attempts, d.next_attempt_at, d.created_at,
      d.completed_at,
      coalesce((select jsonb_agg(jsonb_build_object(
          'attempted_at', to_char(a.attempted_at at time zone 'UTC', ${ISO_INSTANT}),
          'status_code', a.status_code, 'duration_ms', a.duration_ms, 'error', a.error,
          'response_body', a.response_body) order by a.id)
        from webhook_attempts a where a.delivery_id = d.id), '[]'::jsonb) as attempt_log
    from webhook_deliveries d where d.endpoint_id = ${endpointId}
    order by d.id desc limit ${limit}`.execute(db);
  return rows;
}

type EndpointSummary = EndpointRow & {
  restaurant_id: number;
  pending: number;
  failed: number;
  last_delivery_at: Date | null;
};

/** Every endpoint (of one restaurant when given) with its queue (deliveries pending or not yet made), for the command line. */
export async function summarizeEndpoints(db: Db, restaurantId: number | null): Promise<EndpointSummary[]> {
  const { rows } = await sql<EndpointSummary>`
    select w.id, w.restaurant_id, w.url, w.events, w.description, w.disabled_at, w.disabled_reason,
      w.previous_secret_expires_at, w.created_at,
      count(*) filter (where d.status = 'pending')::int + (
        -- committed events the worker has not handed out yet (fanout.ts)
        select count(*)::int from webhook_fanout f
        join events e on e.restaurant_id = f.restaurant_id and e.xid = f.xid
        where f.restaurant_id = w.restaurant_id and ${SUBSCRIBED}
      ) as pending,
      count(*) filter (where d.status = 'failed')::int as failed,
      max(d.completed_at) as last_delivery_at
    from webhook_endpoints w left join webhook_deliveries d on d.endpoint_id = w.id
    where ${restaurantId === null ? sql`true` : sql`w.restaurant_id = ${restaurantId}`}
    group by w.id order by w.restaurant_id, w.id`.execute(db);
  return rows;
}
