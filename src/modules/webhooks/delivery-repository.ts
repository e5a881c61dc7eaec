// SQL of the delivery queue. Claiming takes due rows with FOR UPDATE SKIP LOCKED and, in the same
// statement, counts the attempt and moves next_attempt_at past a lease: each attempt is made by one
// instance, and an attempt whose process died is made again once the lease has run out. A claim
// leaves each endpoint its share of the instance's attempts in flight (ClaimShares), and takes no
// delivery of a disabled endpoint (nor of one whose API key has expired: fanout.ts's LIVE_ENDPOINT):
// one handed out while it was being disabled stays pending, and fails when the endpoint is enabled
// again (endpoint-repository.ts).
//
// The attempts count a claim sets is its token: an attempt's outcome moves its delivery and counts
// in its endpoint's failing streak only while the delivery is still pending with that count, that
// is, not claimed again since. An attempt that ends after its lease ran out and another instance
// claimed the delivery again (a process paused, a recording held up) is logged and changes
// nothing: the newer claim's lease and outcome decide.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PreviousSecret } from '../../db/types.ts';
import { LIVE_ENDPOINT } from './fanout.ts';
import type { Outcome } from './sender.ts';

const DISABLE_AFTER_DAYS = 3;

export type ClaimedDelivery = {
  id: number;
  endpoint_id: number;
  /** The endpoint's restaurant (its attempts in flight are capped too: ClaimShares). */
  restaurant_id: number;
  event_id: string;
  /** The event as JSON text: the body sent (jsonb's text, parsed and written again by nobody). */
  payload: string;
  /** The delivery's attempts, this one counted: the claim's token (held while the row still says it). */
  attempts: number;
  url: string;
  secret_encrypted: string;
  /** The replaced secrets, each signing until its expires_at (migration 0019). */
  previous_secrets: PreviousSecret[];
  /** Whether the endpoint was failing when claimed (its attempts in flight are then capped). */
  failing: boolean;
};

/**
 * How many attempts each endpoint may have in flight at this instance: `cap`, or `failingCap` once
 * it is failing, beside those of `flying` (its attempts in flight here); and each restaurant, its
 * endpoints together, `restaurantCap` beside those of `restaurants`. So a receiver that hangs
 * holds a few of the instance's slots, never all of them, a restaurant's many endpoints (16 at
 * most) a fraction of them, and the others' deliveries go out.
 */
type ClaimShares = {
  /** Attempts in flight here by endpoint, and whether it was failing when they were claimed. */
  flying: ReadonlyMap<number, { n: number; failing: boolean }>;
  cap: number;
  failingCap: number;
  /** Attempts in flight here by restaurant. */
  restaurants: ReadonlyMap<number, number>;
  restaurantCap: number;
};

/** Due rows looked at per claim (their oldest): enough to find other endpoints behind one's backlog. */
const SCAN_PER_CLAIMED = 10;

export async function claimDue(
  db: Db,
  limit: number,
  leaseMs: number,
  shares: ClaimShares = {
    flying: new Map(),
    cap: limit,
    failingCap: limit,
    restaurants: new Map(),
    restaurantCap: limit,
  },
): Promise<ClaimedDelivery[]> {
  const flying = [...shares.flying];
  const ids = flying.map(([id]) => id);
  const counts = flying.map(([, { n }]) => n);
  const restaurants = [...shares.restaurants];
  const restaurantIds = restaurants.map(([id]) => id);
  const restaurantCounts = restaurants.map(([, n]) => n);
  // Endpoints and restaurants with their whole share in flight are skipped by the scan itself, so
  // that a backlog of one of them does not fill the rows looked at; the share of the others is
  // checked on the rows seen: an endpoint's first, then its restaurant's over the rows left.
  const full = flying
    .filter(([, { n, failing }]) => n >= (failing ? shares.failingCap : shares.cap))
    .map(([id]) => id);
  const fullRestaurants = restaurants.filter(([, n]) => n >= shares.restaurantCap).map(([id]) => id);
  const { rows } = await sql<ClaimedDelivery>`
    with flying as (
      select * from unnest(${ids}::int[], ${counts}::int[]) as f(endpoint_id, n)
    ), flying_restaurants as (
      select * from unnest(${restaurantIds}::int[], ${restaurantCounts}::int[]) as f(restaurant_id, n)
    ), seen as (
      -- The endpoint is looked up per delivery (offset 0 keeps the subquery from becoming a join),
      -- so the scan walks webhook_deliveries_due in order and stops at the limit: joined, the
      -- endpoint's filters made the planner read all of an endpoint's deliveries through bitmaps,
      -- which never mark the index entries of completed deliveries dead (240 against 4.4 ms a
      -- claim with 300,000 of them not yet vacuumed).
      select d.id, d.endpoint_id, w.restaurant_id, d.next_attempt_at, w.failing
      from webhook_deliveries d cross join lateral (
        select w.restaurant_id, w.failing_since is not null as failing from webhook_endpoints w
        where w.id = d.endpoint_id and ${LIVE_ENDPOINT} offset 0
      ) w
      where d.status = 'pending' and d.next_attempt_at <= now() and d.endpoint_id <> all(${full}::int[])
        and w.restaurant_id <> all(${fullRestaurants}::int[])
      order by d.next_attempt_at limit ${limit * SCAN_PER_CLAIMED}
    ), ranked as (
      select s.id, s.restaurant_id, s.next_attempt_at, s.failing, coalesce(f.n, 0)
        + row_number() over (partition by s.endpoint_id order by s.next_attempt_at, s.id) as place
      from seen s left join flying f on f.endpoint_id = s.endpoint_id
    ), within_endpoint as (
      select * from ranked
      where place <= case when failing then ${shares.failingCap}::int else ${shares.cap}::int end
    ), ranked_restaurant as (
      select e.id, coalesce(f.n, 0)
        + row_number() over (partition by e.restaurant_id order by e.next_attempt_at, e.id) as place
      from within_endpoint e left join flying_restaurants f on f.restaurant_id = e.restaurant_id
    ), due as (
      select d.id from webhook_deliveries d
      join ranked_restaurant r on r.id = d.id
      where d.status = 'pending' and d.next_attempt_at <= now() and r.place <= ${shares.restaurantCap}::int
      order by d.next_attempt_at limit ${limit}
      for update of d skip locked
    )
    update webhook_deliveries d
      set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
    from due, webhook_endpoints w
    where d.id = due.id and w.id = d.endpoint_id
    returning d.id, d.endpoint_id, w.restaurant_id, d.event_id, d.payload::text as payload, d.attempts, w.url, w.secret_encrypted,
      w.previous_secrets, w.failing_since is not null as failing`.execute(db);
  return rows;
}

export type Success = { delivery: ClaimedDelivery; outcome: Outcome; attemptedAt: Date };

/**
 * Logs successful attempts and marks their deliveries succeeded and their endpoints no longer
 * failing, in one statement for them all: a delivery is a few rows of a webhook's cost, and a
 * statement per row cost an edit route 40% of its throughput with an endpoint subscribed. An
 * endpoint that is not failing is left as it is (no row lock, no new row version per success).
 *
 * An outcome is final, and only the claim holding a delivery decides it: an attempt that ends
 * after its delivery was completed (failed with its endpoint disabled meanwhile) or claimed again
 * (its lease ran out) is logged, and changes neither the delivery nor the endpoint's streak. The
 * deliveries held are locked (key share) before the endpoints, as recordOutcome does: no claim can
 * take them meanwhile, and the order of locks is the same as a failure's that disables.
 */
export async function recordSuccesses(db: Db, successes: Success[]): Promise<void> {
  if (!successes.length) return;
  const rows = successes.map(({ delivery, outcome, attemptedAt }) => ({
    delivery_id: delivery.id,
    endpoint_id: delivery.endpoint_id,
    claim: delivery.attempts,
    attempted_at: attemptedAt.toISOString(),
    duration_ms: outcome.durationMs,
    status_code: outcome.statusCode,
    response_body: outcome.body,
  }));
  await sql`
    with done as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v(delivery_id bigint,
        endpoint_id integer, claim integer, attempted_at timestamptz, duration_ms integer,
        status_code integer, response_body text)
    ), held as (
      -- The deliveries still pending under the claim of their attempt.
      select done.delivery_id, done.endpoint_id, done.claim from done
      join webhook_deliveries d on d.id = done.delivery_id and d.attempts = done.claim and d.status = 'pending'
      for key share of d
    ), attempts as (
      -- Only for deliveries still there: one whose endpoint was deleted during its attempt is gone,
      -- and its attempt row would fail the statement, and so the record of the batch's others.
      insert into webhook_attempts (delivery_id, attempted_at, duration_ms, status_code, response_body)
      select done.delivery_id, done.attempted_at, done.duration_ms, done.status_code, done.response_body
      from done join webhook_deliveries kept on kept.id = done.delivery_id
    ), delivered as (
      update webhook_deliveries d set status = 'succeeded', completed_at = now()
      from held where d.id = held.delivery_id and d.attempts = held.claim and d.status = 'pending'
    )
    update webhook_endpoints set failing_since = null
    where id in (select endpoint_id from held) and failing_since is not null and disabled_at is null`.execute(
    db,
  );
}

/**
 * Logs the attempt and moves the delivery on: succeeded, due again after `retryMs`, or failed
 * (retryMs null). An endpoint failing without a success for DISABLE_AFTER_DAYS is disabled, and
 * its pending deliveries fail with it. An attempt whose delivery is no longer held by its claim
 * (completed, or claimed again once its lease ran out) is only logged: it moves neither the newer
 * claim's lease nor the endpoint's streak (recordSuccesses says the same of successes).
 */
export async function recordOutcome(
  db: Db,
  delivery: ClaimedDelivery,
  outcome: Outcome,
  attemptedAt: Date,
  retryMs: number | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // A delivery whose endpoint was deleted during the attempt is gone with it: nothing to record.
    // Its key share lock keeps it from being claimed again until this transaction ends, so the
    // claim read here holds for the updates below.
    const kept = await trx
      .selectFrom('webhook_deliveries')
      .select(['attempts', 'status'])
      .where('id', '=', delivery.id)
      .forKeyShare()
      .executeTakeFirst();
    if (!kept) return;
    const held = kept.status === 'pending' && kept.attempts === delivery.attempts;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: delivery.id,
        attempted_at: attemptedAt,
        duration_ms: outcome.durationMs,
        status_code: outcome.statusCode,
        error: outcome.error,
        response_body: outcome.body,
      })
      .execute();
    if (!held) return;
    if (outcome.ok) {
      // As recordSuccesses: a completed delivery and a disabled endpoint stay as they are.
      await sql`update webhook_deliveries set status = 'succeeded', completed_at = now()
        where id = ${delivery.id} and attempts = ${delivery.attempts} and status = 'pending'`.execute(trx);
      await sql`update webhook_endpoints set failing_since = null
        where id = ${delivery.endpoint_id} and disabled_at is null`.execute(trx);
      return;
    }
    // The endpoint first: its row lock orders two failing attempts of the same endpoint.
    const late = sql`failing_since < now() - make_interval(days => ${DISABLE_AFTER_DAYS})`;
    const { rows } = await sql<{ disabled: boolean }>`
      update webhook_endpoints set failing_since = coalesce(failing_since, now()),
        disabled_reason = coalesce(disabled_reason,
          case when ${late} then ${`every delivery failed for ${DISABLE_AFTER_DAYS} days`} end),
        disabled_at = coalesce(disabled_at, case when ${late} then now() end)
      where id = ${delivery.endpoint_id}
      returning disabled_at is not null as disabled`.execute(trx);
    const disabled = rows[0]?.disabled ?? true;
    if (retryMs === null || disabled) {
      // A disabled endpoint's pending deliveries (this one too) are given up.
      await sql`update webhook_deliveries set status = 'failed', completed_at = now()
        where (id = ${delivery.id} or endpoint_id = ${disabled ? delivery.endpoint_id : 0})
          and status = 'pending'`.execute(trx);
      return;
    }
    await sql`update webhook_deliveries
      set next_attempt_at = now() + make_interval(secs => ${retryMs / 1000})
      where id = ${delivery.id} and attempts = ${delivery.attempts} and status = 'pending'`.execute(trx);
  });
}
