// Console sign-in attempts, counted per account and per address in 15-minute windows that start
// at the first attempt. An attempt is counted before its password is hashed, in one atomic
// step per counter, so however many arrive at once at most the limit's number of passwords is
// ever checked; a right password gives its attempt back (and clears the account's count), an
// attempt refused by the limit gives its count back as nothing was checked. Counters live in
// Redis when the app has one (ctx.redis, opened by src/http/rate-limit.ts) so every instance
// shares them, else in memory. Unlike the request limiter, this one guards passwords: when
// Redis does not answer it falls back to counting in this process rather than letting guesses
// through uncounted.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { breakerFor } from '../../http/redis-breaker.ts';

export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_LIMITS = { account: 5, address: 20 };
const MAX_MEMORY_WINDOWS = 50_000;
/** No account's email is longer (staff-service.ts); a longer one is counted under its digest, so
 * a flood of sign-ins with huge emails cannot fill this process's memory or Redis. */
const MAX_EMAIL_LENGTH = 254;

function accountKey(email: string): string {
  return email.length <= MAX_EMAIL_LENGTH
    ? `account:${email}`
    : `account:sha256:${createHash('sha256').update(email).digest('base64url')}`;
}

type Count = { attempts: number; resetMs: number };

type Store = {
  add(key: string): Promise<Count>;
  giveBack(key: string): Promise<void>;
  clear(key: string): Promise<void>;
};

function memoryStore(): Store {
  // Insertion order is the order windows end in: ended ones leave from the front, and the
  // oldest when the map is full.
  const windows = new Map<string, { attempts: number; resetAt: number }>();
  const live = (key: string, now: number) => {
    const window = windows.get(key);
    return window && window.resetAt > now ? window : undefined;
  };
  return {
    async add(key) {
      const now = Date.now();
      for (const [k, w] of windows) {
        if (w.resetAt > now && windows.size < MAX_MEMORY_WINDOWS) break;
        windows.delete(k);
      }
      let window = live(key, now);
      if (!window) {
        window = { attempts: 0, resetAt: now + SIGN_IN_WINDOW_MS };
        windows.delete(key);
        windows.set(key, window);
      }
      window.attempts += 1;
      return { attempts: window.attempts, resetMs: window.resetAt - now };
    },
    async giveBack(key) {
      const window = live(key, Date.now());
      if (window && window.attempts > 0) window.attempts -= 1;
    },
    async clear(key) {
      windows.delete(key);
    },
  };
}

const ADD_SCRIPT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {n, redis.call('PTTL', KEYS[1])}`;

// Never creates a key: a window that has ended stays ended.
const GIVE_BACK_SCRIPT = `if redis.call('EXISTS', KEYS[1]) == 1 then return redis.call('DECR', KEYS[1]) end
return 0`;

/** Redis, mirrored in memory so that an outage still finds this process's recent attempts. */
function redisStore(redis: Redis, fallback: Store): Store {
  const name = (key: string) => `comanda:signin:${key}`;
  const breaker = breakerFor(redis);
  /** Redis then the mirror; the mirror alone while Redis fails (a hung Redis is not asked again). */
  const shared = <T>(work: () => Promise<T>, instead: () => Promise<T>): Promise<T> =>
    breaker.closed()
      ? work().then(
          (value) => {
            breaker.succeeded();
            return value;
          },
          () => {
            breaker.failed();
            return instead();
          },
        )
      : instead();
  return {
    add: (key) =>
      shared(
        () =>
          redis.eval(ADD_SCRIPT, 1, name(key), SIGN_IN_WINDOW_MS).then(async (reply) => {
            await fallback.add(key);
            const [attempts, ttl] = reply as [number, number];
            return { attempts: Number(attempts), resetMs: Math.max(0, Number(ttl)) };
          }),
        () => fallback.add(key),
      ),
    giveBack: (key) =>
      shared(
        () => redis.eval(GIVE_BACK_SCRIPT, 1, name(key)).then(() => fallback.giveBack(key)),
        () => fallback.giveBack(key),
      ),
    clear: (key) =>
      shared(
        () => redis.del(name(key)).then(() => fallback.clear(key)),
        () => fallback.clear(key),
      ),
  };
}

export type SignInLimiter = {
  /** Counts an attempt before its password is checked: seconds to wait when over a limit, else 0. */
  attempt(email: string, address: string): Promise<number>;
  /** The password was right: the attempt is given back and the account's count cleared. */
  succeeded(email: string, address: string): Promise<void>;
};

export function signInLimiter(redis: Redis | undefined): SignInLimiter {
  const memory = memoryStore();
  const store = redis ? redisStore(redis, memory) : memory;
  const keys = (email: string, address: string) =>
    [
      [accountKey(email), SIGN_IN_LIMITS.account],
      [`address:${address}`, SIGN_IN_LIMITS.address],
    ] as const;
  return {
    async attempt(email, address) {
      const counts = await Promise.all(keys(email, address).map(([key]) => store.add(key)));
      let wait = 0;
      keys(email, address).forEach(([, limit], i) => {
        const { attempts, resetMs } = counts[i];
        if (attempts > limit) wait = Math.max(wait, Math.ceil(resetMs / 1000) || 1);
      });
      if (wait) await Promise.all(keys(email, address).map(([key]) => store.giveBack(key)));
      return wait;
    },
    async succeeded(email, address) {
      await store.clear(accountKey(email));
      await store.giveBack(`address:${address}`);
    },
  };
}
