// Failed console sign-ins, counted per account and per address in 15-minute windows that start
// at the first failure. Counters live in Redis when the app has one (ctx.redis, opened by
// src/http/rate-limit.ts) so every instance shares them, else in memory. Unlike the request
// limiter, this one guards passwords: when Redis does not answer it falls back to counting in
// this process rather than letting guesses through uncounted.
import type { Redis } from 'ioredis';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_LIMITS = { account: 5, address: 20 };

type Store = {
  count(key: string): Promise<{ failures: number; resetMs: number }>;
  fail(key: string): Promise<void>;
  clear(key: string): Promise<void>;
};

function memoryStore(): Store {
  const windows = new Map<string, { failures: number; resetAt: number }>();
  const live = (key: string) => {
    const window = windows.get(key);
    if (window && window.resetAt > Date.now()) return window;
    windows.delete(key);
    return undefined;
  };
  return {
    async count(key) {
      const window = live(key);
      return { failures: window?.failures ?? 0, resetMs: window ? window.resetAt - Date.now() : 0 };
    },
    async fail(key) {
      if (windows.size > 50_000) for (const k of windows.keys()) live(k);
      const window = live(key) ?? { failures: 0, resetAt: Date.now() + SIGN_IN_WINDOW_MS };
      window.failures += 1;
      windows.set(key, window);
    },
    async clear(key) {
      windows.delete(key);
    },
  };
}

const FAIL_SCRIPT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

/** Redis, mirrored in memory so that an outage still finds this process's recent failures. */
function redisStore(redis: Redis, fallback: Store): Store {
  const name = (key: string) => `comanda:signin:${key}`;
  const orFallback = <T>(work: Promise<T>, instead: () => Promise<T>) => work.catch(instead);
  return {
    count: (key) =>
      orFallback(
        redis
          .multi()
          .get(name(key))
          .pttl(name(key))
          .exec()
          .then((replies) => ({
            failures: Number(replies?.[0]?.[1] ?? 0),
            resetMs: Math.max(0, Number(replies?.[1]?.[1] ?? 0)),
          })),
        () => fallback.count(key),
      ),
    fail: (key) =>
      orFallback(
        redis.eval(FAIL_SCRIPT, 1, name(key), SIGN_IN_WINDOW_MS).then(() => fallback.fail(key)),
        () => fallback.fail(key),
      ),
    clear: (key) =>
      orFallback(
        redis.del(name(key)).then(() => fallback.clear(key)),
        () => fallback.clear(key),
      ),
  };
}

export type SignInLimiter = {
  /** Seconds before another try is allowed for this account or address; 0 when allowed. */
  retryAfter(email: string, address: string): Promise<number>;
  failed(email: string, address: string): Promise<void>;
  succeeded(email: string): Promise<void>;
};

export function signInLimiter(redis: Redis | undefined): SignInLimiter {
  const memory = memoryStore();
  const store = redis ? redisStore(redis, memory) : memory;
  const keys = (email: string, address: string) =>
    [
      [`account:${email}`, SIGN_IN_LIMITS.account],
      [`address:${address}`, SIGN_IN_LIMITS.address],
    ] as const;
  return {
    async retryAfter(email, address) {
      let wait = 0;
      for (const [key, limit] of keys(email, address)) {
        const { failures, resetMs } = await store.count(key);
        if (failures >= limit) wait = Math.max(wait, Math.ceil(resetMs / 1000) || 1);
      }
      return wait;
    },
    async failed(email, address) {
      for (const [key] of keys(email, address)) await store.fail(key);
    },
    succeeded: (email) => store.clear(`account:${email}`),
  };
}
