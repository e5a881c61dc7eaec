// When a failed delivery is tried again: exponential backoff with jitter over about 24 hours.
// Attempt n (1-based) failed -> wait 15 s x 4^(n-1), +/-20%: 15 s, 1 min, 4 min, 16 min, 64 min,
// 4.3 h, 17 h (22.8 h in all); the 8th failure marks the delivery failed.
export const MAX_ATTEMPTS = 8;

export type RetrySchedule = { baseMs: number; factor: number; jitter: number };

export const DEFAULT_SCHEDULE: RetrySchedule = { baseMs: 15_000, factor: 4, jitter: 0.2 };

/** The wait after failed attempt `attempt`, or null when it was the last one. */
export function retryDelay(
  attempt: number,
  schedule = DEFAULT_SCHEDULE,
  random = Math.random,
): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = schedule.baseMs * schedule.factor ** (attempt - 1);
  return Math.round(base * (1 - schedule.jitter + 2 * schedule.jitter * random()));
}
