import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { ComandaClient, type ComandaError, verifyWebhook } from '../../src/client/index.ts';
import { recordEvents } from '../../src/modules/events/outbox.ts';
import { newSecret, signedHeaders } from '../../src/modules/webhooks/signer.ts';
import { addRestaurant } from '../support/catalog-world.ts';
import { feedSettled } from '../support/events-world.ts';
import { apiKeyFor, listeningApp } from './support.ts';

test('the client and webhook verification', async (t) => {
  const { ctx, baseUrl } = await listeningApp(t, { config: { webhookAllowPrivate: true } });
  const restaurant = await addRestaurant(ctx.db, 'Cantina Bella');
  const client = new ComandaClient({ baseUrl, apiKey: await apiKeyFor(ctx.db, [restaurant]) });
  await recordEvents(
    ctx.db,
    [1, 2, 3, 4, 5].map((n) => ({
      restaurant_id: restaurant,
      type: 'product.updated' as const,
      data: { n },
    })),
  );

  await t.test('listEvents walks the feed page by page in order', async () => {
    await feedSettled(ctx.db);
    const pages = [];
    for await (const page of client.listEvents({ limit: 2, types: ['product.updated'] })) pages.push(page);
    assert.deepEqual(
      pages.map((p) => p.data.map((e) => e.data.n)),
      [[1, 2], [3, 4], [5]],
    );
    const resumed = await client.eventsPage({ after: pages[1].next_cursor! });
    assert.deepEqual(
      resumed.data.map((e) => e.data.n),
      [5],
    );
  });

  await t.test('the webhook-endpoint calls create, read, test, rotate and delete', async () => {
    const created = await client.createWebhookEndpoint({
      url: 'http://127.0.0.1:9/hook',
      events: ['product.updated', 'menu.updated'],
      description: 'POS',
    });
    assert.match(created.secret, /^whsec_/);
    assert.deepEqual(
      (await client.listWebhookEndpoints()).map((e) => e.id),
      [created.id],
    );
    assert.equal((await client.getWebhookEndpoint(created.id)).description, 'POS');
    const ping = await client.testWebhookEndpoint(created.id);
    assert.equal(ping.event_type, 'ping');
    const [delivery] = await client.listWebhookDeliveries(created.id);
    assert.equal(delivery.event_id, ping.event_id);
    await ctx.db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: new Date(), disabled_reason: 'every delivery failed for 3 days' })
      .where('id', '=', created.id)
      .execute();
    assert.equal((await client.getWebhookEndpoint(created.id)).status, 'disabled');
    assert.equal((await client.enableWebhookEndpoint(created.id)).status, 'enabled');
    const rotated = await client.rotateWebhookSecret(created.id);
    assert.notEqual(rotated.secret, created.secret);
    await client.deleteWebhookEndpoint(created.id);
    await assert.rejects(client.getWebhookEndpoint(created.id), (err: ComandaError) => {
      assert.equal(err.key, 'webhook_endpoint_not_found');
      return true;
    });
  });

  await t.test('verifyWebhook accepts what the standardwebhooks package signs', async () => {
    const secret = newSecret();
    const body = JSON.stringify({ id: 'evt_1', type: 'ping', restaurant_id: 1, created_at: '', data: {} });
    const now = new Date();
    const signature = new Webhook(secret).sign('evt_1', now, body);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signature,
    };
    assert.equal((await verifyWebhook(secret, headers, body)).id, 'evt_1');
    assert.equal(
      (await verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body))).type,
      'ping',
    );
  });

  await t.test('verifyWebhook accepts either secret during a rotation', async () => {
    const [current, previous] = [newSecret(), newSecret()];
    const headers = signedHeaders([new Webhook(current), new Webhook(previous)], 'evt_2', '{"id":"evt_2"}');
    for (const secret of [current, previous])
      assert.equal((await verifyWebhook(secret, headers, '{"id":"evt_2"}')).id, 'evt_2');
  });

  await t.test(
    'verifyWebhook reads a header given as several values (a header bag of arrays), in any case',
    async () => {
      const secret = newSecret();
      const now = new Date();
      const signature = new Webhook(secret).sign('evt_4', now, '{"id":"evt_4"}');
      const headers = {
        'Webhook-Id': 'evt_4',
        'WEBHOOK-TIMESTAMP': String(Math.floor(now.getTime() / 1000)),
        'Webhook-Signature': [`v1,${btoa('another secret signed this')}`, signature],
      };
      assert.equal((await verifyWebhook(secret, headers, '{"id":"evt_4"}')).id, 'evt_4');
    },
  );

  await t.test('verifyWebhook refuses another secret, an altered body and an old timestamp', async () => {
    const secret = newSecret();
    const headers = signedHeaders([new Webhook(secret)], 'evt_3', '{"a":1}');
    const refusedWith = async (why: RegExp, ...args: Parameters<typeof verifyWebhook>) =>
      assert.rejects(verifyWebhook(...args), (err: ComandaError) => {
        assert.equal(err.key, 'webhook_verification_failed');
        assert.match(err.message, why);
        return true;
      });
    await refusedWith(/no signature matches/, newSecret(), headers, '{"a":1}');
    await refusedWith(/no signature matches/, secret, headers, '{"a":2}');
    const old = signedHeaders([new Webhook(secret)], 'evt_3', '{"a":1}', new Date(Date.now() - 10 * 60_000));
    await refusedWith(/timestamp/, secret, old, '{"a":1}');
    await refusedWith(
      /webhook-signature header is missing/,
      secret,
      { 'webhook-id': 'x', 'webhook-timestamp': '1' },
      '',
    );
    // Signed by the secret, but no event: the same error, never a SyntaxError.
    await refusedWith(/not a JSON event/, secret, signedHeaders([new Webhook(secret)], 'evt_5', 'ok'), 'ok');
  });
});
