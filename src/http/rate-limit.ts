// Fixed one-minute request windows: per credential on data routes; on the token endpoint per
// proven credential and per address (src/modules/auth/token-endpoint.ts). Counters live in Redis when REDIS_URL is set (one atomic script, so every
// instance shares them) and in memory otherwise.
// Redis unreachable or hung: fail open. The request is allowed, a warning is logged at most every
// 10 s and rate_limit_store_errors_total counts it; the limiter protects capacity, it is not an
// authorization check, so an outage of it must not turn into 500s for every caller. After a few
// failures in a row the limiter stops asking Redis until a background probe answers
// (redis-breaker.ts), and nothing counted during the outage is applied when Redis wakes.
import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Counter } from 'prom-client';
import type { AppContext } from '../context.ts';
import { breakerFor, COMMAND_TIMEOUT_MS } from './redis-breaker.ts';

export type RateDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
  /** When the window ends, in the store's clock: names the window a hit was counted in. */
  windowEnd: number;
};

export type RateLimiter = {
  /** Counts one request for `key`; null when the shared store did not answer (fail open). */
  hit(key: string): Promise<RateDecision | null>;
  /**
   * Gives back one request counted for `key` in the window `windowEnd` names (its hit's), only while
   * that window lasts: once it has passed, a later window never gets back what it did not count.
   */
  refund(key: string, windowEnd: number): Promise<void>;
  /** The window of `key` as it stands, counting nothing (a 304 shows it: conditional.ts). */
  peek(key: string): Promise<RateDecision | null>;
};

const WINDOW_MS = 60_000;
const WARN_EVERY_MS = 10_000;
/** The most windows one process keeps in memory; past it the oldest window is dropped. */
export const MAX_MEMORY_WINDOWS = 100_000;
const MAX_KEY_LENGTH = 128;

/** Keys are made of ids and addresses; anything longer is stored as its digest. */
function boundedKey(key: string): string {
  return key.length <= MAX_KEY_LENGTH
    ? key
    : `sha256:${createHash('sha256').update(key).digest('base64url')}`;
}

// Redis' own clock past the caller's deadline (ARGV[n], redis-breaker.ts): the caller has given
// up, so a command that a frozen server runs when it wakes counts nothing.
const tooLate = (n: number, answer: string) => `local t = redis.call('TIME')
if tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) > tonumber(ARGV[${n}]) then return ${answer} end`;

// Redis' clock in milliseconds (the end of a window is told in it).
const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// INCR and the window's expiry in one step: no counter can be left without an expiry.
const HIT_SCRIPT = `${tooLate(2, '{-1, 0, 0}')}
${NOW_MS}
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl, now + ttl}`;

// A refund never creates a key, and gives back only to the window its hit was counted in (ARGV[2],
// its end): a window that has passed stays passed, and the next one keeps its count. Windows of one
// key end at least a window apart, so a second's tolerance tells them apart whatever the rounding.
const REFUND_SCRIPT = `${tooLate(1, '0')}
${NOW_MS}
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 and math.abs(now + ttl - tonumber(ARGV[2])) < 1000 then return redis.call('DECR', KEYS[1]) end
return 0`;

// The count and time left of a window, for a conditional read answered 304 (which spends nothing).
const PEEK_SCRIPT = `${NOW_MS}
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
return {n, redis.call('PTTL', KEYS[1]), now}`;

type HitCommand = {
  rateLimitHit(key: string, windowMs: number, deadline: number): Promise<[number, number, number]>;
  rateLimitRefund(key: string, deadline: number, windowEnd: number): Promise<number>;
  rateLimitPeek(key: string): Promise<[number, number, number]>;
};

export const storeErrors = new Counter({
  name: 'rate_limit_store_errors_total',
  help: 'Rate-limit checks allowed without counting because Redis did not answer',
  labelNames: ['limiter'],
});

function decide(count: number, ttlMs: number, limit: number, windowEnd: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
    windowEnd,
  };
}

export function memoryLimiter(limit: number): RateLimiter {
  // A renewed window is inserted again, so the map's order is the order in which windows end:
  // each hit drops the ended ones from the front, and the oldest when the map is full.
  const windows = new Map<string, { count: number; resetAt: number }>();
  const sweep = (now: number) => {
    for (const [key, window] of windows) {
      if (window.resetAt > now && windows.size < MAX_MEMORY_WINDOWS) break;
      windows.delete(key);
    }
  };
  const live = (key: string, now: number) => {
    const window = windows.get(key);
    return window && window.resetAt > now ? window : undefined;
  };
  return {
    async hit(rawKey) {
      const key = boundedKey(rawKey);
      const now = Date.now();
      sweep(now);
      let window = live(key, now);
      if (!window) {
        window = { count: 0, resetAt: now + WINDOW_MS };
        windows.delete(key);
        windows.set(key, window);
      }
      window.count += 1;
      return decide(window.count, window.resetAt - now, limit, window.resetAt);
    },
    async refund(rawKey, windowEnd) {
      const window = live(boundedKey(rawKey), Date.now());
      if (window && window.resetAt === windowEnd && window.count > 0) window.count -= 1;
    },
    async peek(rawKey) {
      const now = Date.now();
      const window = live(boundedKey(rawKey), now);
      if (!window) return decide(0, WINDOW_MS, limit, now + WINDOW_MS);
      return decide(window.count, window.resetAt - now, limit, window.resetAt);
    },
  };
}

function redisLimiter(name: string, limit: number, redis: Redis, warn: (err: unknown) => void): RateLimiter {
  if (!('rateLimitHit' in redis)) {
    redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.defineCommand('rateLimitRefund', { numberOfKeys: 1, lua: REFUND_SCRIPT });
    redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  }
  const commands = redis as unknown as HitCommand;
  const stored = (key: string) => `comanda:rl:${name}:${boundedKey(key)}`;
  const breaker = breakerFor(redis);
  return {
    async hit(key) {
      if (!breaker.closed()) {
        storeErrors.inc({ limiter: name });
        return null;
      }
      try {
        const [count, ttl, end] = await commands.rateLimitHit(stored(key), WINDOW_MS, breaker.deadline());
        // Counted nothing, as past its deadline: a late Redis, or a clock offset gone stale (the
        // process' clock stepped). A failure, so the breaker's probe measures the offset again.
        if (Number(count) < 0) throw new Error('the rate-limit count reached Redis after its deadline');
        breaker.succeeded();
        return decide(Number(count), Number(ttl), limit, Number(end));
      } catch (err) {
        breaker.failed();
        storeErrors.inc({ limiter: name });
        warn(err);
        return null;
      }
    },
    async refund(key, windowEnd) {
      if (!breaker.closed()) return;
      try {
        await commands.rateLimitRefund(stored(key), breaker.deadline(), windowEnd);
        breaker.succeeded();
      } catch (err) {
        breaker.failed();
        warn(err);
      }
    },
    async peek(key) {
      if (!breaker.closed()) return null;
      try {
        const [count, ttl, now] = await commands.rateLimitPeek(stored(key));
        breaker.succeeded();
        const left = Number(ttl) < 0 ? WINDOW_MS : Number(ttl);
        return decide(Number(count), left, limit, Number(now) + left);
      } catch (err) {
        breaker.failed();
        warn(err);
        return null;
      }
    },
  };
}

/** A throttled warning, so a Redis outage writes one line every 10 s, not one per request. */
function throttledWarning(log: FastifyBaseLogger): (err: unknown) => void {
  let last = 0;
  return (err) => {
    if (Date.now() - last < WARN_EVERY_MS) return;
    last = Date.now();
    const reason = err instanceof Error ? err.message : String(err);
    log.warn({ reason }, 'rate limit store (Redis) unavailable: requests are allowed without counting');
  };
}

function openRedis(url: string, log: FastifyBaseLogger): Redis {
  const redis = new Redis(url, {
    // Without a connection a command fails at once (and the limiter fails open) instead of
    // waiting in a queue; a hung server is cut off by commandTimeout.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  redis.on('error', throttledWarning(log));
  return redis;
}

async function waitForRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    new Promise((resolve) => {
      redis.once('ready', resolve);
      redis.once('error', resolve);
    }),
    new Promise((resolve) => {
      timer = setTimeout(resolve, 1000);
    }),
  ]);
  clearTimeout(timer);
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimits: { data: RateLimiter; token: RateLimiter };
  }
}

/** Decorates `app.rateLimits`; opens (and closes with the app) ctx.redis when REDIS_URL is set. */
export function installRateLimits(app: FastifyInstance, ctx: AppContext): void {
  if (!ctx.redis && ctx.config.redisUrl) {
    const redis = openRedis(ctx.config.redisUrl, app.log);
    ctx.redis = redis;
    app.addHook('onReady', () => waitForRedis(redis));
    app.addHook('onClose', async () => redis.disconnect());
  }
  const redis = ctx.redis;
  const make = (name: string, limit: number) =>
    redis ? redisLimiter(name, limit, redis, throttledWarning(app.log)) : memoryLimiter(limit);
  app.decorate('rateLimits', {
    data: make('data', ctx.config.rateLimitPerMinute),
    token: make('token', ctx.config.tokenRateLimitPerMinute),
  });
}
