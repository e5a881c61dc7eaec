// The delivery loop yields to requests: after a full batch it claims the next at once only when
// no request arrived meanwhile; otherwise it pauses first (worker.ts).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { createWebhookWorker, requestsArrived } from '../../../src/modules/webhooks/worker.ts';
import { eventsWorld } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

test('deliveries wait between full batches while requests arrive', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { app, products } = world;
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const authorization = await world.bearer();
  const created = await app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { authorization },
    payload: { url: receiver.url('/hook'), events: ['product.updated'] },
  });
  assert.equal(created.statusCode, 201, created.body);
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({
      method: 'PUT',
      url: `/v1/products/${products[0]}`,
      headers: { authorization },
      payload: { name: `Margherita ${i}` },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const worker = (busy: boolean) =>
    createWebhookWorker({
      db: world.db,
      secretKey: world.ctx.secrets.fiscalTokenKey,
      allowPrivate: true,
      log: (err) => assert.fail(String(err)),
      batch: 2,
      pollMs: 60_000,
      busy: () => busy,
    });
  const until = async (count: number) => {
    while (receiver.received.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  const busy = worker(true);
  busy.start();
  await until(2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await busy.stop();
  assert.equal(receiver.received.length, 2, 'one batch, then the pause');

  const idle = worker(false);
  idle.start();
  await until(5);
  await idle.stop();
  assert.equal(receiver.received.length, 5, 'the rest at once, batch after batch');
});

test('a request the server received since the last ask counts as busy, once', () => {
  const server = new EventEmitter();
  const busy = requestsArrived(server);
  assert.equal(busy(), false);
  server.emit('request');
  server.emit('request');
  assert.equal(busy(), true);
  assert.equal(busy(), false);
});
