import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { startEventPurge } from '../../../src/modules/events/purge-job.ts';
import { eventsWorld } from '../../support/events-world.ts';

test('the purge job removes expired events on its own', async (t) => {
  const world = await eventsWorld(t);
  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 'old' } },
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 'new' } },
  ]);
  await sql`update events set created_at = now() - interval '8 days' where data->>'n' = 'old'`.execute(
    world.db,
  );
  const failures: unknown[] = [];
  const job = startEventPurge(world.db, 7, (err) => failures.push(err), 20);
  t.after(() => job.stop());
  const left = async () =>
    (await sql<{ n: string }>`select data->>'n' as n from events`.execute(world.db)).rows.map((r) => r.n);
  for (let i = 0; i < 200 && (await left()).length > 1; i++) await sleep(25);
  assert.deepEqual(await left(), ['new']);
  // Stopped here: a run still in flight when the database closes after the test is not its failure.
  job.stop();
  assert.deepEqual(failures, []);
});
