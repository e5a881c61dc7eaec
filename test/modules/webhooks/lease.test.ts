import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { sql } from 'kysely';
import { claimDue } from '../../../src/modules/webhooks/delivery-repository.ts';
import { fanOut } from '../../../src/modules/webhooks/fanout.ts';
import { createWebhookWorker } from '../../../src/modules/webhooks/worker.ts';
import { eventsWorld, worldWorker } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

/** A restaurant with one endpoint subscribed to product.updated, and one such event written. */
async function oneEventForOneEndpoint(t: TestContext) {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const authorization = await world.bearer();
  const create = await world.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { authorization },
    payload: { url: receiver.url(), events: ['product.updated'] },
  });
  assert.equal(create.statusCode, 201);
  const edit = await world.app.inject({
    method: 'PUT',
    url: `/v1/products/${world.products[0]}`,
    headers: { authorization },
    payload: { name: 'Editada' },
  });
  assert.equal(edit.statusCode, 200);
  return { world, receiver, authorization, create };
}

test('a claimed delivery whose instance died', async (t) => {
  const { world, receiver, authorization, create } = await oneEventForOneEndpoint(t);
  const worker = worldWorker(t, world);

  await t.test(
    'is not claimed again while its lease runs, and is attempted once it has run out',
    async () => {
      // An instance hands the event out, claims its delivery and dies before recording anything.
      await fanOut(world.db);
      assert.equal((await claimDue(world.db, 10, 60_000)).length, 1);
      assert.equal(await worker.runOnce(), 0);
      // The lease runs out (the clock is not waited on).
      await sql`update webhook_deliveries set next_attempt_at = now()`.execute(world.db);
      assert.equal(await worker.runOnce(), 1);
      assert.equal(receiver.received.length, 1);
      const [delivery] = (
        await world.app.inject({
          url: `/v1/webhook-endpoints/${create.json().id}/deliveries`,
          headers: { authorization },
        })
      ).json().data;
      assert.equal(delivery.status, 'succeeded');
    },
  );
});

test('an attempt cut short by its worker stopping is made again, even when it was the last one', async (t) => {
  const { world, receiver } = await oneEventForOneEndpoint(t);
  await fanOut(world.db);
  await sql`update webhook_deliveries set attempts = 7`.execute(world.db);
  const workerOf = () =>
    createWebhookWorker({
      db: world.db,
      secretKey: world.ctx.secrets.fiscalTokenKey,
      allowPrivate: true,
      log: (err) => assert.fail(String(err)),
    });
  const stopping = workerOf();
  receiver.respond = () => {};
  const turn = stopping.runOnce();
  while (receiver.received.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
  await stopping.stop();
  assert.equal(await turn, 1);
  const state = async () =>
    (
      await sql<{ status: string; failing_since: Date | null }>`select d.status, w.failing_since
        from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id`.execute(world.db)
    ).rows[0];
  assert.deepEqual(await state(), { status: 'pending', failing_since: null });

  // The next instance makes it once the lease has run out (the clock is not waited on).
  await sql`update webhook_deliveries set next_attempt_at = now()`.execute(world.db);
  receiver.respond = (_req, res) => res.writeHead(204).end();
  const next = workerOf();
  t.after(() => next.stop());
  assert.equal(await next.runOnce(), 1);
  assert.equal((await state()).status, 'succeeded');
});
