import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { fanOut } from '../../../src/modules/webhooks/fanout.ts';
import { eventsWorld, feedSettled, worldWorker } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

test('webhook delivery', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { app, db, products } = world;
  const receiver = await startReceiver(t);
  const authorization = await world.bearer();
  const worker = worldWorker(t, world, {
    timeoutMs: 500,
    schedule: { baseMs: 60_000, factor: 2, jitter: 0 },
  });
  const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization }, payload });
  const create = async (events: string[], path = '/hook') => {
    const res = await api('POST', '/v1/webhook-endpoints', {
      url: receiver.url(path),
      events,
      description: 'POS',
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  };
  const edit = (name: string, id = products[0]) =>
    app.inject({ method: 'PUT', url: `/v1/products/${id}`, headers: { authorization }, payload: { name } });
  /** The pending retries' backoff has passed (the clock is not waited on). */
  const dueNow = () =>
    sql`update webhook_deliveries set next_attempt_at = now() where status = 'pending'`.execute(db);
  const deliveries = async (id: number) =>
    (await api('GET', `/v1/webhook-endpoints/${id}/deliveries`)).json().data;

  const endpoint = await create(['product.updated']);

  await t.test('the secret is shown at creation only', async () => {
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await api('GET', `/v1/webhook-endpoints/${endpoint.id}`);
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().secret, undefined);
    assert.equal(read.json().status, 'enabled');
    const list = (await api('GET', '/v1/webhook-endpoints')).json().data;
    assert.deepEqual(
      list.map((e: { id: number }) => e.id),
      [endpoint.id],
    );
    const stored = await db
      .selectFrom('webhook_endpoints')
      .select('secret_encrypted')
      .executeTakeFirstOrThrow();
    assert.ok(!stored.secret_encrypted.includes(endpoint.secret.slice(6)));
  });

  await t.test(
    "a delivery verifies with the standardwebhooks package's own verifier and is the feed's event",
    async () => {
      assert.equal((await edit('Margherita Nova')).statusCode, 200);
      assert.equal(await worker.runOnce(), 1);
      const [request] = receiver.received;
      const payload = new Webhook(endpoint.secret).verify(request.body, request.headers) as { id: string };
      assert.equal(request.headers['content-type'], 'application/json');
      await feedSettled(db);
      const [event] = (await api('GET', '/v1/events?types=product.updated')).json().data;
      assert.deepEqual(payload, event);
      assert.equal(request.headers['webhook-id'], event.id);
      const [delivery] = await deliveries(endpoint.id);
      assert.equal(delivery.status, 'succeeded');
      assert.equal(delivery.attempts.length, 1);
      assert.equal(delivery.attempts[0].status_code, 200);
      assert.equal(delivery.attempts[0].response_body, 'ok');
    },
  );

  await t.test('an endpoint gets only the types it subscribed to', async () => {
    const before = receiver.received.length;
    await app.inject({
      method: 'PATCH',
      url: `/v1/products/${products[1]}/availability`,
      headers: { authorization },
      payload: { available: false },
    });
    await worker.runOnce();
    const types = receiver.received.slice(before).map((r) => JSON.parse(r.body).type);
    assert.deepEqual(types, ['product.updated']);
  });

  await t.test(
    'a receiver that was down gets the event once it is back, with the same webhook-id',
    async () => {
      receiver.received.length = 0;
      await receiver.close();
      await edit('Margherita Volta');
      assert.equal(await worker.runOnce(), 1);
      assert.equal(await worker.runOnce(), 0, 'the retry waits for its backoff');
      await receiver.reopen();
      receiver.respond = (_req, res) => res.writeHead(503).end('busy');
      await dueNow();
      assert.equal(await worker.runOnce(), 1);
      receiver.respond = (_req, res) => res.writeHead(204).end();
      await dueNow();
      assert.equal(await worker.runOnce(), 1);
      assert.equal(receiver.received.length, 2);
      assert.equal(receiver.received[0].headers['webhook-id'], receiver.received[1].headers['webhook-id']);
      const [delivery] = await deliveries(endpoint.id);
      assert.equal(delivery.status, 'succeeded');
      assert.deepEqual(
        delivery.attempts.map((a: { status_code: number | null }) => a.status_code),
        [null, 503, 204],
      );
      assert.match(delivery.attempts[0].error, /ECONNREFUSED/);
    },
  );

  await t.test("a success ends the endpoint's failing streak, so its 3 days start again", async () => {
    const failingSince = async () =>
      (
        await sql<{ failing_since: Date | null }>`select failing_since from webhook_endpoints
        where id = ${endpoint.id}`.execute(db)
      ).rows[0].failing_since;
    receiver.respond = (_req, res) => res.writeHead(500).end();
    await edit('Margherita Tropeço');
    assert.equal(await worker.runOnce(), 1);
    assert.notEqual(await failingSince(), null);
    receiver.respond = (_req, res) => res.writeHead(204).end();
    await dueNow();
    assert.equal(await worker.runOnce(), 1);
    assert.equal(await failingSince(), null);
  });

  await t.test('a delivery is marked failed after its last attempt', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    await edit('Margherita Falha');
    // Its delivery is made after the commit: handed out, then moved to its last attempt.
    assert.equal(await fanOut(db), 1);
    await sql`update webhook_deliveries set attempts = 7 where status = 'pending'`.execute(db);
    assert.equal(await worker.runOnce(), 1);
    const [delivery] = await deliveries(endpoint.id);
    assert.equal(delivery.status, 'failed');
    assert.equal(delivery.next_attempt_at, null);
  });

  await t.test('a rotated secret signs beside the previous one for 24 hours', async () => {
    receiver.respond = (_req, res) => res.writeHead(200).end();
    const rotated = (await api('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`)).json();
    assert.notEqual(rotated.secret, endpoint.secret);
    const hours = (Date.parse(rotated.previous_secret_expires_at) - Date.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, String(hours));
    await edit('Margherita Rotacionada');
    await worker.runOnce();
    const request = receiver.received.at(-1)!;
    assert.equal(request.headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [rotated.secret, endpoint.secret])
      new Webhook(secret).verify(request.body, request.headers);
    const past = new Date(Date.now() - 1000).toISOString();
    await sql`update webhook_endpoints set previous_secret_expires_at = ${past},
      previous_secrets = jsonb_set(previous_secrets, '{0,expires_at}', to_jsonb(${past}::text))`.execute(db);
    await edit('Margherita Só Nova');
    await worker.runOnce();
    const later = receiver.received.at(-1)!;
    assert.equal(later.headers['webhook-signature'].split(' ').length, 1);
    assert.throws(() => new Webhook(endpoint.secret).verify(later.body, later.headers));
  });

  await t.test('the test button sends a ping event', async () => {
    const res = await api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`);
    assert.equal(res.statusCode, 202);
    await worker.runOnce();
    const ping = JSON.parse(receiver.received.at(-1)!.body);
    assert.equal(ping.type, 'ping');
    assert.equal(ping.id, res.json().event_id);
    assert.deepEqual(ping.data, { webhook_endpoint_id: endpoint.id });
  });

  await t.test('an endpoint whose deliveries all failed for 3 days is disabled and says so', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end();
    await edit('Margherita Fora');
    await worker.runOnce();
    await sql`update webhook_endpoints set failing_since = now() - interval '3 days 1 minute'`.execute(db);
    await edit('Margherita Fora Ainda');
    await dueNow();
    await worker.runOnce();
    const read = (await api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).json();
    assert.equal(read.status, 'disabled');
    assert.equal(read.disabled_reason, 'every delivery failed for 3 days');
    assert.ok((await deliveries(endpoint.id)).every((d: { status: string }) => d.status !== 'pending'));
    const ping = await api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`);
    assert.equal(ping.statusCode, 409);
    assert.equal(ping.json().key, 'webhook_endpoint_disabled');
  });

  await t.test(
    'a disabled endpoint enabled again gets the events of later changes, not those of the time it was disabled',
    async () => {
      receiver.respond = (_req, res) => res.writeHead(204).end();
      const received = receiver.received.length;
      await edit('Margherita Enquanto Desligado');
      const enabled = await api('POST', `/v1/webhook-endpoints/${endpoint.id}/enable`);
      assert.equal(enabled.statusCode, 200, enabled.body);
      assert.equal(enabled.json().status, 'enabled');
      assert.equal(enabled.json().disabled_at, null);
      assert.equal(enabled.json().disabled_reason, null);
      await worker.runOnce();
      const ours = () => receiver.received.slice(received).filter((r) => r.path === '/hook');
      assert.deepEqual(ours(), [], 'nothing of the time it was disabled');
      await edit('Margherita De Volta');
      await worker.runOnce();
      const names = ours()
        .map((r) => JSON.parse(r.body))
        .filter((e) => e.type === 'product.updated')
        .map((e) => e.data.changes[0].to);
      assert.deepEqual(names, ['Margherita De Volta']);
      const { failing_since } = await db
        .selectFrom('webhook_endpoints')
        .select('failing_since')
        .where('id', '=', endpoint.id)
        .executeTakeFirstOrThrow();
      assert.equal(failing_since, null, 'its 3 days start again');
      // Enabled already: it keeps its place, so an edit not yet handed out still reaches it.
      await edit('Margherita Sempre Ligada');
      const again = await api('POST', `/v1/webhook-endpoints/${endpoint.id}/enable`);
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().created_at, enabled.json().created_at);
      await worker.runOnce();
      assert.equal(JSON.parse(ours().at(-1)!.body).data.changes[0].to, 'Margherita Sempre Ligada');
      const missing = await api('POST', '/v1/webhook-endpoints/999999/enable');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().key, 'webhook_endpoint_not_found');
    },
  );

  await t.test('a deleted endpoint is gone with its deliveries', async () => {
    assert.equal((await api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode, 204);
    assert.equal((await api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).statusCode, 404);
    assert.equal(
      (await api('DELETE', `/v1/webhook-endpoints/${endpoint.id}`)).json().key,
      'webhook_endpoint_not_found',
    );
    const left = await sql`select 1 from webhook_deliveries where endpoint_id = ${endpoint.id}`.execute(db);
    assert.equal(left.rows.length, 0);
  });

  await t.test('subscribing to a type needs its read scope', async () => {
    const narrow = await world.bearer(['webhooks:write', 'products:read']);
    const res = await app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization: narrow },
      payload: { url: receiver.url(), events: ['cash_flows.updated'] },
    });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().message, /financial:read/);
  });
});
