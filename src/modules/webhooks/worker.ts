// The delivery loop each server runs (src/server.ts): claim due deliveries, send them at once,
// record each outcome; poll again at once while work remains, else after a short pause. stop()
// aborts the attempts in flight (they are recorded as failed and retried later) and waits for
// the loop, so a shutdown is not held by a slow receiver.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/database.ts';
import { decryptSecret } from '../../lib/encryption.ts';
import { type ClaimedDelivery, claimDue, recordOutcome } from './delivery-repository.ts';
import { DEFAULT_SCHEDULE, type RetrySchedule, retryDelay } from './retry-schedule.ts';
import { createSender } from './sender.ts';
import { signedHeaders } from './signer.ts';

export type WorkerOptions = {
  db: Db;
  /** Decrypts endpoint secrets (ctx.secrets.fiscalTokenKey, as for brands' fiscal tokens). */
  secretKey: string;
  allowPrivate: boolean;
  log: (err: unknown) => void;
  pollMs?: number;
  batch?: number;
  timeoutMs?: number;
  leaseMs?: number;
  schedule?: RetrySchedule;
};

export type WebhookWorker = { stop(): Promise<void>; runOnce(): Promise<number> };

function secretsOf(delivery: ClaimedDelivery, key: string, now: Date): string[] {
  const secrets = [decryptSecret(delivery.secret_encrypted, key)];
  const previous = delivery.previous_secret_encrypted;
  if (previous && delivery.previous_secret_expires_at && delivery.previous_secret_expires_at > now) {
    secrets.push(decryptSecret(previous, key));
  }
  return secrets;
}

export function createWebhookWorker(options: WorkerOptions): WebhookWorker & { start(): void } {
  const { db, secretKey } = options;
  const batch = options.batch ?? 20;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? Math.max(60_000, timeoutMs * 3);
  const stopping = new AbortController();
  const sender = createSender({ allowPrivate: options.allowPrivate, timeoutMs, stop: stopping.signal });
  let loop: Promise<void> | undefined;

  async function attempt(delivery: ClaimedDelivery): Promise<void> {
    const now = new Date();
    const body = JSON.stringify(delivery.payload);
    const headers = signedHeaders(secretsOf(delivery, secretKey, now), delivery.event_id, body, now);
    const outcome = await sender.send(delivery.url, headers, body);
    const retryMs = outcome.ok ? null : retryDelay(delivery.attempts, options.schedule ?? DEFAULT_SCHEDULE);
    await recordOutcome(db, delivery, outcome, now, retryMs);
  }

  async function runOnce(): Promise<number> {
    const claimed = await claimDue(db, batch, leaseMs);
    await Promise.all(claimed.map((delivery) => attempt(delivery).catch(options.log)));
    return claimed.length;
  }

  async function run(): Promise<void> {
    while (!stopping.signal.aborted) {
      const done = await runOnce().catch((err) => {
        options.log(err);
        return 0;
      });
      if (done < batch)
        await sleep(options.pollMs ?? 100, undefined, { signal: stopping.signal }).catch(() => {});
    }
  }

  return {
    runOnce,
    start() {
      loop ??= run();
    },
    async stop() {
      stopping.abort();
      await loop;
      await sender.close();
    },
  };
}
