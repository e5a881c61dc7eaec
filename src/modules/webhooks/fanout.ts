// Hands committed events to the endpoints subscribed to them, after the commit (migration 0017
// says why): each webhook_fanout row names a restaurant and a transaction that wrote events of
// it; one statement takes rows (SKIP LOCKED), deletes them and writes a delivery per event and
// endpoint, so with any number of instances a transaction's events are handed out once, and a
// statement that fails hands out nothing and leaves its rows for the next turn.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { EVENT_JSON } from '../events/outbox.ts';

/**
 * Whether endpoint `w` is not cut off by its API key's expiry (SQL): made by no key, or by one whose
 * expires_at has not come (the key found by its primary key). An expiry is no write, so no trigger
 * of migration 0021 disables its endpoints when it comes: until disableEndpointsOfExpiredKeys
 * does, they are treated as disabled, here and where deliveries are claimed.
 */
const KEY_UNEXPIRED =
  '(w.api_key_id is null or not exists (select 1 from api_keys xk where xk.id = w.api_key_id and xk.expires_at <= now()))';

/** Endpoint `w` takes events and attempts (SQL): enabled, and its API key, if any, not expired. */
const LIVE = `w.disabled_at is null and ${KEY_UNEXPIRED}`;
export const LIVE_ENDPOINT = sql.raw(LIVE);

/**
 * Which endpoint `w` an event `e` of its restaurant goes to (SQL): subscribed to its type, enabled
 * (LIVE_ENDPOINT), and written by a transaction that committed after the endpoint's creation (or
 * enabling again) did, whatever their xids' order: one its creating statement's snapshot does not
 * see (migration 0020 says why that is exact).
 */
export const SUBSCRIBED = sql.raw(
  `e.type = any(w.events) and ${LIVE} and not pg_visible_in_snapshot(e.xid, w.created_snapshot)`,
);

export const KEY_EXPIRED_REASON = 'the API key that created it expired';

/**
 * Disables the endpoints of the API keys that have expired, and fails their pending deliveries,
 * as migration 0021's triggers do for a revoked key (its disable_endpoints_of), so that the
 * endpoint reads as disabled, with why. One indexed query finds none when there are none (the
 * enabled endpoints made by a key, each key by its primary key); each key found is disabled in a
 * transaction of its own, rechecking its expiry, so its restaurants are locked in their order as a
 * revocation's are. Returns how many keys it disabled the endpoints of.
 */
export async function disableEndpointsOfExpiredKeys(db: Db): Promise<number> {
  const { rows } = await sql<{ id: number }>`
    select distinct w.api_key_id as id from webhook_endpoints w
    join api_keys k on k.id = w.api_key_id
    where w.api_key_id is not null and w.disabled_at is null and k.expires_at <= now()`.execute(db);
  for (const { id } of rows)
    await sql`select disable_endpoints_of(k.id, null, null, ${KEY_EXPIRED_REASON})
      from api_keys k where k.id = ${id} and k.expires_at <= now()`.execute(db);
  return rows.length;
}

/** Transactions handed out by one statement. */
const FANOUT_BATCH = 100;

/** Hands out the events of up to `limit` committed transactions; returns how many transactions. */
export async function fanOut(db: Db, limit = FANOUT_BATCH): Promise<number> {
  const { rows } = await sql<{ taken: number }>`
    with taken as (
      delete from webhook_fanout where (restaurant_id, xid) in (
        select restaurant_id, xid from webhook_fanout limit ${limit} for update skip locked
      )
      returning restaurant_id, xid
    ), queued as (
      insert into webhook_deliveries (endpoint_id, event_id, event_type, payload)
      select w.id, e.id, e.type, ${EVENT_JSON}
      from taken t
      join events e on e.restaurant_id = t.restaurant_id and e.xid = t.xid
      join webhook_endpoints w on w.restaurant_id = e.restaurant_id and ${SUBSCRIBED}
      order by e.seq, w.id
    )
    select count(*)::int as taken from taken`.execute(db);
  return rows[0].taken;
}
