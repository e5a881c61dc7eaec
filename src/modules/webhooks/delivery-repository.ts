// SQL of the delivery queue. Claiming takes due rows with FOR UPDATE SKIP LOCKED and, in the same
// statement, counts the attempt and moves next_attempt_at past a lease: each attempt is made by one
// instance, and an attempt whose process died is made again once the lease has run out.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Outcome } from './sender.ts';

export const DISABLE_AFTER_DAYS = 3;

export type ClaimedDelivery = {
  id: number;
  endpoint_id: number;
  event_id: string;
  payload: unknown;
  attempts: number;
  url: string;
  secret_encrypted: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
};

export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
  const { rows } = await sql<ClaimedDelivery>`
    with due as (
      select id from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now()
      order by next_attempt_at limit ${limit}
      for update skip locked
    )
    update webhook_deliveries d
      set attempts = d.attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
    from due, webhook_endpoints w
    where d.id = due.id and w.id = d.endpoint_id
    returning d.id, d.endpoint_id, d.event_id, d.payload, d.attempts, w.url, w.secret_encrypted,
      w.previous_secret_encrypted, w.previous_secret_expires_at`.execute(db);
  return rows;
}

/**
 * Logs the attempt and moves the delivery on: succeeded, due again after `retryMs`, or failed
 * (retryMs null). An endpoint failing without a success for DISABLE_AFTER_DAYS is disabled, and
 * its pending deliveries fail with it.
 */
export async function recordOutcome(
  db: Db,
  delivery: ClaimedDelivery,
  outcome: Outcome,
  attemptedAt: Date,
  retryMs: number | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
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
    if (outcome.ok) {
      await sql`update webhook_deliveries set status = 'succeeded', completed_at = now()
        where id = ${delivery.id}`.execute(trx);
      await sql`update webhook_endpoints set failing_since = null where id = ${delivery.endpoint_id}`.execute(trx);
      return;
    }
    await sql`update webhook_deliveries set
        status = case when ${retryMs}::integer is null then 'failed' else 'pending' end,
        completed_at = case when ${retryMs}::integer is null then now() end,
        next_attempt_at = case when ${retryMs}::integer is null then next_attempt_at
          else now() + make_interval(secs => ${retryMs}::integer / 1000.0) end
      where id = ${delivery.id}`.execute(trx);
    const { rows } = await sql<{ disabled: boolean }>`
      update webhook_endpoints set failing_since = coalesce(failing_since, now()),
        disabled_at = case when failing_since < now() - make_interval(days => ${DISABLE_AFTER_DAYS})
          then now() end,
        disabled_reason = case when failing_since < now() - make_interval(days => ${DISABLE_AFTER_DAYS})
          then ${`every delivery failed for ${DISABLE_AFTER_DAYS} days`} end
      where id = ${delivery.endpoint_id} and disabled_at is null
      returning disabled_at is not null as disabled`.execute(trx);
    if (rows[0]?.disabled) {
      await sql`update webhook_deliveries set status = 'failed', completed_at = now()
        where endpoint_id = ${delivery.endpoint_id} and status = 'pending'`.execute(trx);
    }
  });
}
