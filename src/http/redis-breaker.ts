// A circuit breaker in front of Redis, one per connection: after FAILURES_TO_OPEN failed commands
// in a row (a hung server answers none within ioredis' commandTimeout) callers stop asking Redis
// and go their documented way without it; a PING every PROBE_MS in the background closes the
// breaker again. So a hung Redis costs FAILURES_TO_OPEN timeouts, not one per request.
// It also keeps Redis' clock offset, so that a command may carry the latest instant at which it
// still counts (deadline()): a command that a frozen server runs after waking, once its caller has
// given up, changes nothing.
import type { Redis } from 'ioredis';

const FAILURES_TO_OPEN = 3;
const PROBE_MS = 1000;
/**
 * How long a command may take before its caller gives up on it (ioredis' commandTimeout). Redis
 * answers in well under a millisecond; a shorter bound turns a busy event loop's late timers into
 * failures of a Redis that did answer.
 */
export const COMMAND_TIMEOUT_MS = 1000;

type RedisBreaker = {
  /** Whether to ask Redis at all now. */
  closed(): boolean;
  succeeded(): void;
  failed(): void;
  /** Redis' clock (ms) after which a command sent now must not take effect. */
  deadline(): number;
};

const breakers = new WeakMap<Redis, RedisBreaker>();

export function breakerFor(redis: Redis): RedisBreaker {
  let breaker = breakers.get(redis);
  if (!breaker) {
    breaker = createBreaker(redis);
    breakers.set(redis, breaker);
  }
  return breaker;
}

function createBreaker(redis: Redis): RedisBreaker {
  let failures = 0;
  let probe: NodeJS.Timeout | undefined;
  let offsetMs = 0;

  const measureOffset = async () => {
    const sent = Date.now();
    const [seconds, micros] = await redis.time();
    offsetMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - (sent + Date.now()) / 2;
  };
  redis.on('ready', () => {
    measureOffset().catch(() => {});
  });

  const close = () => {
    failures = 0;
    clearInterval(probe);
    probe = undefined;
  };
  const open = () => {
    probe = setInterval(() => {
      measureOffset().then(close, () => {});
    }, PROBE_MS);
    probe.unref();
  };
  redis.once('end', () => clearInterval(probe));

  return {
    closed: () => probe === undefined,
    succeeded: () => {
      failures = 0;
    },
    failed: () => {
      failures += 1;
      if (failures >= FAILURES_TO_OPEN && probe === undefined) open();
    },
    deadline: () => Date.now() + offsetMs + COMMAND_TIMEOUT_MS,
  };
}
