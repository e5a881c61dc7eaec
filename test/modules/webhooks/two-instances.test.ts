// Two instances on one PostgreSQL database, each with its own pool and delivery loop: every
// attempt is made by exactly one of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/db/database.ts';
import { createWebhookWorker } from '../../../src/modules/webhooks/worker.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { createEndpoint, eventsWorld } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

const EDITS = 60;

test('two instances deliver each attempt once', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL)',
}, async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver(t);
  const authorization = await world.bearer();
  await createEndpoint(world, receiver.url(), { authorization });
  for (let i = 0; i < EDITS; i++) {
    const res = await world.app.inject({
      method: 'PUT',
      url: `/v1/products/${world.products[i % 2]}`,
      headers: { authorization },
      payload: { name: `Edição ${i}` },
    });
    assert.equal(res.statusCode, 200);
  }
  const second = await openDatabase({ databaseUrl: world.database.url, poolSize: 4 });
  const claimedBy = [0, 0];
  const workers = [world.db, second.db].map((db, index) => {
    const worker = createWebhookWorker({
      db,
      secretKey: world.ctx.secrets.fiscalTokenKey,
      allowPrivate: true,
      log: (err) => assert.fail(String(err)),
      pollMs: 5,
      batch: 4,
    });
    return { ...worker, index };
  });
  // Both loops race over the same queue; each counts what it claimed.
  const loops = workers.map(async (worker) => {
    for (let round = 0; round < 400; round++) {
      const done = await worker.runOnce();
      claimedBy[worker.index] += done;
      if (done === 0 && claimedBy[0] + claimedBy[1] >= EDITS) return;
      if (done === 0) await sleep(5);
    }
  });
  await Promise.all(loops);
  await Promise.all(workers.map((w) => w.stop()));
  await second.close();

  const ids = receiver.received.map((r) => r.headers['webhook-id']);
  assert.equal(ids.length, EDITS);
  assert.equal(new Set(ids).size, EDITS);
  assert.equal(claimedBy[0] + claimedBy[1], EDITS);
  assert.ok(claimedBy[0] > 0 && claimedBy[1] > 0, `both instances delivered: ${claimedBy}`);
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from webhook_attempts`.execute(
    world.db,
  );
  assert.equal(rows[0].n, EDITS);
});
