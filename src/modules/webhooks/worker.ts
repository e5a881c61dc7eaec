// The delivery loop each server runs (src/server.ts): hand newly committed events to their
// endpoints (fanout.ts), claim due deliveries, send them at once,
// record each failure as it ends and the batch's successes in one statement once all have ended;
// poll again at once while work remains, else after a short pause. stop() aborts the attempts in flight (they are not
// recorded: each is made again when its lease runs out, as if the process had died) and waits for
// the loop, so a shutdown is not held by a slow receiver.
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { Webhook } from 'standardwebhooks';
import type { Db } from '../../db/database.ts';
import { decryptSecret } from '../../lib/encryption.ts';
import {
  type ClaimedDelivery,
  claimDue,
  recordOutcome,
  recordSuccesses,
  type Success,
} from './delivery-repository.ts';
import { fanOut } from './fanout.ts';
import { DEFAULT_SCHEDULE, type RetrySchedule, retryDelay } from './retry-schedule.ts';
import { createSender } from './sender.ts';
import { signedHeaders } from './signer.ts';

export type WorkerOptions = {
  db: Db;
  /**
   * Decrypts endpoint secrets (ctx.secrets.fiscalTokenKey, as for brands' fiscal tokens), read at
   * each decryption: rotate-fiscal-key replaces it in place (background.ts passes a getter).
   */
  secretKey: string;
  allowPrivate: boolean;
  log: (err: unknown) => void;
  pollMs?: number;
  batch?: number;
  timeoutMs?: number;
  leaseMs?: number;
  schedule?: RetrySchedule;
};

type WebhookWorker = { stop(): Promise<void>; runOnce(): Promise<number> };

/** Decrypts endpoint secrets and makes their signers, each once while in use (the 500 most recently used are kept). */
function secretDecrypter(key: () => string): (stored: string) => Webhook {
  const known = new LRUCache<string, Webhook>({ max: 500 });
  return (stored) => {
    let signer = known.get(stored);
    if (signer === undefined) {
      signer = new Webhook(decryptSecret(stored, key()));
      known.set(stored, signer);
    }
    return signer;
  };
}

/** The current secret's signer, then those of the replaced secrets whose 24 hours have not ended. */
function secretsOf(delivery: ClaimedDelivery, decrypt: (stored: string) => Webhook, now: Date): Webhook[] {
  const previous = delivery.previous_secrets.filter((secret) => new Date(secret.expires_at) > now);
  return [delivery.secret_encrypted, ...previous.map((secret) => secret.secret_encrypted)].map(decrypt);
}

export function createWebhookWorker(options: WorkerOptions): WebhookWorker & { start(): void } {
  const { db } = options;
  const decrypt = secretDecrypter(() => options.secretKey);
  const batch = options.batch ?? 20;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? Math.max(60_000, timeoutMs * 3);
  const schedule = options.schedule ?? DEFAULT_SCHEDULE;
  const stopping = new AbortController();
  const sender = createSender({ allowPrivate: options.allowPrivate, timeoutMs, stop: stopping.signal });
  let loop: Promise<void> | undefined;
  /** Sends one delivery; a failure is recorded here, a success is returned to be recorded with the batch's. */
  async function attempt(delivery: ClaimedDelivery): Promise<Success | undefined> {
    const now = new Date();
    const body = delivery.payload;
    let signers: Webhook[];
    try {
      signers = secretsOf(delivery, decrypt, now);
    } catch {
      // A secret stored under another key (FISCAL_TOKEN_KEY changed without rotate-fiscal-key):
      // a failed attempt, so the delivery follows its schedule and fails for good, instead of
      // being claimed again at every lease.
      const error = 'the signing secret cannot be decrypted with the server key (FISCAL_TOKEN_KEY)';
      const unsigned = { statusCode: null, durationMs: 0, body: null, error, ok: false };
      await recordOutcome(db, delivery, unsigned, now, retryDelay(delivery.attempts, schedule));
      return;
    }
    const headers = signedHeaders(signers, delivery.event_id, body, now);
    const outcome = await sender.send(delivery.url, headers, body);
    if (outcome.ok) return { delivery, outcome, attemptedAt: now };
    // Cut short by this worker stopping, the attempt says nothing of the receiver: recorded, it
    // would count as the endpoint failing and fail a last attempt for good.
    if (stopping.signal.aborted && outcome.statusCode === null) return;
    await recordOutcome(db, delivery, outcome, now, retryDelay(delivery.attempts, schedule));
  }

  /** One turn: hands out what committed since the last, then sends; returns how many deliveries it claimed. */
  async function runOnce(): Promise<number> {
    await fanOut(db).catch(options.log);
    const claimed = await claimDue(db, batch, leaseMs);
    const successes: Success[] = [];
    await Promise.all(
      claimed.map((delivery) =>
        attempt(delivery).then((success) => success && successes.push(success), options.log),
      ),
    );
    // A success not recorded (this statement failed, the process died) is sent again when its
    // lease ends: at least once.
    await recordSuccesses(db, successes).catch(options.log);
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
