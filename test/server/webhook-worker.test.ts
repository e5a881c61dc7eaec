// The server runs the delivery loop itself, and a receiver that never answers does not hold its stop.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { addCategory, addProduct, addRestaurant } from '../support/catalog-world.ts';
import { startReceiver } from '../support/receiver.ts';
import { bearerFor } from '../support/tokens.ts';

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 200 && !check(); i++) await sleep(25);
  assert.ok(check(), what);
}

test('the server delivers webhooks and stops within its deadline', async (t) => {
  const receiver = await startReceiver(t);
  const config = {
    ...parseConfig({ DATABASE_URL: 'memory://', PORT: '0', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE: '1' }),
    shutdownTimeoutMs: 2000,
  };
  const server = await startServer(config);
  t.after(() => server.stop());
  const { db } = server.database;
  const restaurant = await addRestaurant(db, 'Cantina Bella');
  const product = await addProduct(db, restaurant, await addCategory(db, restaurant, { name: 'Pizzas' }));
  const { authorization } = await bearerFor(
    db,
    [restaurant],
    ['products:write', 'products:read', 'webhooks:write'],
  );
  const call = (method: 'POST' | 'PUT', url: string, payload: object) =>
    server.app.inject({ method, url, headers: { authorization }, payload });
  const created = await call('POST', '/v1/webhook-endpoints', {
    url: receiver.url(),
    events: ['product.updated'],
  });
  assert.equal(created.statusCode, 201);

  await t.test('an edit reaches the receiver without anything but the running server', async () => {
    assert.equal((await call('PUT', `/v1/products/${product}`, { name: 'Nova' })).statusCode, 200);
    await until(() => receiver.received.length === 1, 'the receiver got the event');
    assert.equal(JSON.parse(receiver.received[0].body).data.changes[0].to, 'Nova');
  });

  await t.test('a stop is not held by a receiver that never answers', async () => {
    receiver.respond = () => {};
    await call('PUT', `/v1/products/${product}`, { name: 'Parada' });
    await until(() => receiver.received.length === 2, 'the attempt is in flight');
    const stopped = await Promise.race([
      server.stop().then(() => true),
      sleep(config.shutdownTimeoutMs, false),
    ]);
    assert.equal(stopped, true);
  });
});
