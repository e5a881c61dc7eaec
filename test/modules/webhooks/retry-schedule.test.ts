import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_SCHEDULE, MAX_ATTEMPTS, retryDelay } from '../../../src/modules/webhooks/retry-schedule.ts';

test('retries back off exponentially with jitter for about a day, then stop', async (t) => {
  await t.test('without jitter the waits are 15 s times 4 to the attempt, 8 attempts in all', () => {
    const waits = Array.from({ length: MAX_ATTEMPTS }, (_, i) =>
      retryDelay(i + 1, DEFAULT_SCHEDULE, () => 0.5),
    );
    assert.deepEqual(waits, [15_000, 60_000, 240_000, 960_000, 3_840_000, 15_360_000, 61_440_000, null]);
    const total = (waits as number[]).slice(0, -1).reduce((a, b) => a + b, 0);
    assert.ok(total > 20 * 3_600_000 && total < 24 * 3_600_000, `${total / 3_600_000} h`);
  });

  await t.test('jitter moves each wait by at most 20% either way', () => {
    assert.equal(
      retryDelay(2, DEFAULT_SCHEDULE, () => 0),
      48_000,
    );
    assert.equal(
      retryDelay(2, DEFAULT_SCHEDULE, () => 1),
      72_000,
    );
  });
});
