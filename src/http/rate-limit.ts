// Fixed one-minute request windows: per credential on data routes, per client_id or IP on the
// token endpoint. Counters live in Redis when REDIS_URL is set (one atomic script, so every
// instance shares them) and in memory otherwise.
// Redis unreachable: fail open. The request is allowed, a warning is logged at most every 10 s
// and rate_limit_store_errors_total counts it; the limiter protects capacity, it is not an
// authorization check, so an outage of it must not turn into 500s for every caller.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { Counter } from 'prom-client';
import type { AppContext } from '../app.ts';

export type RateDecision = { allowed: boolean; limit: number; remaining: number; resetSeconds: number };

export type RateLimiter = {
  /** Counts one request for `key`; null when the shared store did not answer (fail open). */
  hit(key: string): Promise<RateDecision | null>;
  /** The window of `key` as it stands, counting nothing (a 304 shows it: conditional.ts). */
  peek(key: string): Promise<RateDecision | null>;
};

const WINDOW_MS = 60_000;
const WARN_EVERY_MS = 10_000;

// INCR and the window's expiry in one step: no counter can be left without an expiry.
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {n, ttl}`;

// The count and time left of a window, for a conditional read answered 304 (which spends nothing).
const PEEK_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
return {n, redis.call('PTTL', KEYS[1])}`;

type HitCommand = {
  rateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  rateLimitPeek(key: string): Promise<[number, number]>;
};

export const storeErrors = new Counter({
  name: 'rate_limit_store_errors_total',
  help: 'Rate-limit checks allowed without counting because Redis did not answer',
  labelNames: ['limiter'],
});

function decide(count: number, ttlMs: number, limit: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
  };
}

function memoryLimiter(limit: number): RateLimiter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    async hit(key) {
      const now = Date.now();
      if (windows.size > 50_000) for (const [k, w] of windows) if (w.resetAt <= now) windows.delete(k);
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        window = { count: 0, resetAt: now + WINDOW_MS };
        windows.set(key, window);
      }
      window.count += 1;
      return decide(window.count, window.resetAt - now, limit);
    },
    async peek(key) {
      const now = Date.now();
      const window = windows.get(key);
      if (!window || window.resetAt <= now) return decide(0, WINDOW_MS, limit);
      return decide(window.count, window.resetAt - now, limit);
    },
  };
}

function redisLimiter(name: string, limit: number, redis: Redis, warn: (err: unknown) => void): RateLimiter {
  if (!('rateLimitHit' in redis)) redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  if (!('rateLimitPeek' in redis))
    redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  const commands = redis as unknown as HitCommand;
  return {
    async hit(key) {
      try {
        const [count, ttl] = await commands.rateLimitHit(`comanda:rl:${name}:${key}`, WINDOW_MS);
        return decide(Number(count), Number(ttl), limit);
      } catch (err) {
        storeErrors.inc({ limiter: name });
        warn(err);
        return null;
      }
    },
    async peek(key) {
      try {
        const [count, ttl] = await commands.rateLimitPeek(`comanda:rl:${name}:${key}`);
        return decide(Number(count), Number(ttl) < 0 ? WINDOW_MS : Number(ttl), limit);
      } catch (err) {
        storeErrors.inc({ limiter: name });
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

export function openRedis(url: string, log: FastifyBaseLogger): Redis {
  const redis = new Redis(url, {
    // Without a connection a command fails at once (and the limiter fails open) instead of
    // waiting in a queue; a hung server is cut off by commandTimeout.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 250,
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
