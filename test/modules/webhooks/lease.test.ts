import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { sql } from 'kysely';
import {
  claimDue,
  recordOutcome,
  recordSuccesses,
} from '../../../src/modules/webhooks/delivery-repository.ts';
import { fanOut } from '../../../src/modules/webhooks/fanout.ts';
import { createWebhookWorker } from '../../../src/modules/webhooks/worker.ts';
import { createEndpoint, eventsWorld, worldWorker } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

/** A restaurant with one endpoint subscribed to product.updated, and one such event written. */
async function oneEventForOneEndpoint(t: TestContext) {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver(t);
  const authorization = await world.bearer();
  const endpoint = await createEndpoint(world, receiver.url(), { authorization });
  const edit = await world.app.inject({
    method: 'PUT',
    url: `/v1/products/${world.products[0]}`,
    headers: { authorization },
    payload: { name: 'Editada' },
  });
  assert.equal(edit.statusCode, 200);
  return { world, receiver, authorization, endpoint };
}

test('a claimed delivery whose instance died', async (t) => {
  const { world, receiver, authorization, endpoint } = await oneEventForOneEndpoint(t);
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
          url: `/v1/webhook-endpoints/${endpoint}/deliveries`,
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

test('an attempt that ends after its lease ran out and another instance claimed its delivery again', async (t) => {
  const { world } = await oneEventForOneEndpoint(t);
  await fanOut(world.db);
  const [first] = await claimDue(world.db, 10, 60_000);
  // The first claim's lease runs out (the clock is not waited on) and another instance claims the
  // delivery again: its attempt is in flight, its lease 60 s away.
  await sql`update webhook_deliveries set next_attempt_at = now()`.execute(world.db);
  const [second] = await claimDue(world.db, 10, 60_000);
  assert.equal(second.attempts, first.attempts + 1);
  const state = async () =>
    (
      await sql<{
        status: string;
        next_attempt_at: Date;
        failing_since: Date | null;
        disabled_at: Date | null;
        logged: number;
      }>`select d.status, d.next_attempt_at, w.failing_since, w.disabled_at,
          (select count(*)::int from webhook_attempts a where a.delivery_id = d.id) as logged
        from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id`.execute(world.db)
    ).rows[0];
  const failed = { statusCode: 500, durationMs: 5, body: 'down', error: null, ok: false };
  const ok = { statusCode: 204, durationMs: 5, body: '', error: null, ok: true };
  const leased = (await state()).next_attempt_at;

  await t.test(
    "its failure is logged, and moves neither the new claim's lease nor the endpoint's streak",
    async () => {
      await recordOutcome(world.db, first, failed, new Date(), 15_000);
      assert.deepEqual(await state(), {
        status: 'pending',
        next_attempt_at: leased,
        failing_since: null,
        disabled_at: null,
        logged: 1,
      });
    },
  );

  await t.test(
    'as a last attempt of an endpoint failing for 3 days, it neither fails the delivery nor disables the endpoint',
    async () => {
      const { rows } = await sql<{ failing_since: Date }>`update webhook_endpoints
        set failing_since = now() - interval '4 days' returning failing_since`.execute(world.db);
      await recordOutcome(world.db, first, failed, new Date(), null);
      assert.deepEqual(await state(), {
        status: 'pending',
        next_attempt_at: leased,
        failing_since: rows[0].failing_since,
        disabled_at: null,
        logged: 2,
      });
    },
  );

  await t.test('its success is logged, and neither completes the delivery nor ends the streak', async () => {
    const { failing_since } = await state();
    await recordSuccesses(world.db, [{ delivery: first, outcome: ok, attemptedAt: new Date() }]);
    assert.deepEqual(await state(), {
      status: 'pending',
      next_attempt_at: leased,
      failing_since,
      disabled_at: null,
      logged: 3,
    });
  });

  await t.test("the new claim's outcome is recorded as usual", async () => {
    await sql`update webhook_endpoints set failing_since = null`.execute(world.db);
    const recording = Date.now();
    await recordOutcome(world.db, second, failed, new Date(), 15_000);
    const after = await state();
    const recorded = Date.now();
    assert.equal(after.status, 'pending');
    assert.ok(after.failing_since, 'its failure starts the streak');
    // 15 s from the statement's now(), whenever it ran (on a loaded machine, seconds may pass): the
    // bounds are the instants before and after it, a millisecond of rounding allowed.
    const retryAt = after.next_attempt_at.getTime();
    assert.ok(
      retryAt >= recording + 15_000 - 1 && retryAt <= recorded + 15_000 + 1,
      `due again on its schedule, ${retryAt - recording} ms after the outcome was recorded`,
    );
    await recordSuccesses(world.db, [{ delivery: second, outcome: ok, attemptedAt: new Date() }]);
    assert.deepEqual(
      { ...(await state()), next_attempt_at: null },
      { status: 'succeeded', next_attempt_at: null, failing_since: null, disabled_at: null, logged: 5 },
    );
  });
});
