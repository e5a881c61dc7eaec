// The delivery loop each server runs (src/server.ts): hand newly committed events to their
// endpoints (fanout.ts), claim due deliveries into the free slots of the instance and send them at
// once, record each failure as it ends and the successes of a turn in one statement; and every 10 s
// disable the endpoints of API keys that have expired (fanout.ts). A turn does
// not wait for its slowest attempt: the next one comes as soon as every attempt has ended, or after
// pollMs for those still running, whose slots stay taken while the others are filled again; and an
// endpoint has at most its share of the slots (claimDue), so a receiver that hangs costs its own
// attempts and nobody else's; a restaurant's endpoints together have at most the restaurant's
// share (a quarter by default), so a restaurant whose many receivers hang leaves the others most of
// the slots. stop() aborts the attempts in flight (they are not recorded: each is made again when
// its lease runs out, as if the process had died) and waits for the loop, so a shutdown is not held
// by a slow receiver.
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
import { disableEndpointsOfExpiredKeys, fanOut } from './fanout.ts';
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
  /** Deliveries claimed by one statement at most. */
  batch?: number;
  /** Attempts in flight at once at this instance, at most. */
  concurrency?: number;
  /**
   * Attempts in flight at once at this instance to one restaurant's endpoints, at most: a quarter
   * of `concurrency` by default (25 of 100), so the endpoints of a restaurant whose receivers
   * hang, or of four, leave the rest of the slots to the others.
   */
  restaurantCap?: number;
  timeoutMs?: number;
  leaseMs?: number;
  schedule?: RetrySchedule;
  /**
   * How often the loop disables the endpoints of API keys that have expired (fanout.ts), 10 s by
   * default; runOnce always does. They get nothing meanwhile: this only marks them disabled.
   */
  expiryCheckMs?: number;
};

type WebhookWorker = { stop(): Promise<void>; runOnce(): Promise<number> };

/** Attempts in flight at once, per instance, to an endpoint that is failing. */
const FAILING_SHARE = 2;

/** One restaurant's endpoints have at most 1/RESTAURANT_FRACTION of an instance's slots (by default). */
const RESTAURANT_FRACTION = 4;

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
  const concurrency = Math.max(batch, options.concurrency ?? 100);
  const restaurantCap = Math.max(1, options.restaurantCap ?? Math.ceil(concurrency / RESTAURANT_FRACTION));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? Math.max(60_000, timeoutMs * 3);
  const schedule = options.schedule ?? DEFAULT_SCHEDULE;
  const expiryCheckMs = options.expiryCheckMs ?? 10_000;
  let expiryCheckedAt = Number.NEGATIVE_INFINITY;
  const stopping = new AbortController();
  const sender = createSender({ allowPrivate: options.allowPrivate, timeoutMs, stop: stopping.signal });
  let loop: Promise<void> | undefined;
  let stopped: Promise<void> | undefined;
  /** Sends one delivery; a failure is recorded here, a success is returned to be recorded with the turn's. */
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

  /** The attempts in flight, and how many of them each endpoint and restaurant has (claimDue's shares). */
  const running = new Set<Promise<void>>();
  const flying = new Map<number, { n: number; failing: boolean }>();
  const restaurants = new Map<number, number>();
  let succeeded: Success[] = [];

  function launch(delivery: ClaimedDelivery): void {
    const share = flying.get(delivery.endpoint_id) ?? { n: 0, failing: delivery.failing };
    share.n++;
    share.failing = delivery.failing;
    flying.set(delivery.endpoint_id, share);
    const restaurant = delivery.restaurant_id;
    restaurants.set(restaurant, (restaurants.get(restaurant) ?? 0) + 1);
    const sent: Promise<void> = attempt(delivery)
      .then((success) => void (success && succeeded.push(success)), options.log)
      .finally(() => {
        running.delete(sent);
        if (--share.n === 0 && flying.get(delivery.endpoint_id) === share)
          flying.delete(delivery.endpoint_id);
        const left = (restaurants.get(restaurant) ?? 1) - 1;
        if (left > 0) restaurants.set(restaurant, left);
        else restaurants.delete(restaurant);
      });
    running.add(sent);
  }

  /**
   * Records the successes of the attempts ended since the last call, in one statement. A success
   * not recorded (this statement failed, the process died) is sent again when its lease ends: at
   * least once.
   */
  async function recordSucceeded(): Promise<void> {
    if (!succeeded.length) return;
    const batchOf = succeeded;
    succeeded = [];
    await recordSuccesses(db, batchOf).catch(options.log);
  }

  /** Disables the endpoints of expired API keys, at most once per expiryCheckMs unless `always`. */
  async function disableExpired(always: boolean): Promise<void> {
    const now = performance.now();
    if (!always && now - expiryCheckedAt < expiryCheckMs) return;
    expiryCheckedAt = now;
    await disableEndpointsOfExpiredKeys(db).catch(options.log);
  }

  /**
   * Disables what expired (now and then), hands out what committed since the last turn, records,
   * fills the free slots; returns how many it claimed.
   */
  async function turn(room: number, checkExpiry = false): Promise<number> {
    await disableExpired(checkExpiry);
    await fanOut(db).catch(options.log);
    await recordSucceeded();
    if (room <= 0) return 0;
    const claimed = await claimDue(db, room, leaseMs, {
      flying,
      cap: batch,
      failingCap: FAILING_SHARE,
      restaurants,
      restaurantCap,
    });
    for (const delivery of claimed) launch(delivery);
    return claimed.length;
  }

  /** One turn whose attempts are all waited for and recorded; returns how many deliveries it claimed. */
  async function runOnce(): Promise<number> {
    const claimed = await turn(Math.min(batch, concurrency - running.size), true);
    await Promise.all(running);
    await recordSucceeded();
    return claimed;
  }

  async function run(): Promise<void> {
    const pollMs = options.pollMs ?? 100;
    while (!stopping.signal.aborted) {
      const room = Math.min(batch, concurrency - running.size);
      const claimed = await turn(room).catch((err) => {
        options.log(err);
        return 0;
      });
      // The next turn once every attempt has ended, or after pollMs while some still run. With
      // nothing more due, the successes are recorded as soon as their attempts end, and the next
      // turn waits for pollMs.
      const turnEnded = new AbortController();
      const signal = AbortSignal.any([stopping.signal, turnEnded.signal]);
      const next = sleep(pollMs, undefined, { signal }).catch(() => {});
      await Promise.race([Promise.all(running), next]);
      if (claimed < room) {
        await recordSucceeded();
        await next;
      }
      turnEnded.abort();
    }
    await Promise.all(running);
    await recordSucceeded();
  }

  return {
    runOnce,
    start() {
      loop ??= run();
    },
    // Once, however many times it is called.
    stop() {
      stopped ??= (async () => {
        stopping.abort();
        await loop;
        await sender.close();
      })();
      return stopped;
    },
  };
}
