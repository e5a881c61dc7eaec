import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { COMMANDS } from '../../../src/admin/commands.ts';
import { decryptSecret } from '../../../src/lib/encryption.ts';
import { startBackgroundJobs } from '../../../src/modules/webhooks/background.ts';
import { eventsWorld, worldWorker } from '../../support/events-world.ts';
import { startReceiver } from '../../support/receiver.ts';

const HOUR = 3_600_000;

async function rotationWorld(t: Parameters<typeof eventsWorld>[0]) {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { app, products } = world;
  const receiver = await startReceiver(t);
  const worker = worldWorker(t, world, { timeoutMs: 500 });
  const api = async (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization: await world.bearer() }, payload });
  const created = await api('POST', '/v1/webhook-endpoints', {
    url: receiver.url(),
    events: ['product.updated'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const endpoint = created.json();
  const rotate = async () => {
    const res = await api('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { secret: string; previous_secret_expires_at: string | null };
  };
  const read = async () => (await api('GET', `/v1/webhook-endpoints/${endpoint.id}`)).json();
  let edits = 0;
  /** Edits a product and returns the delivery the receiver got for it. */
  const delivered = async () => {
    const res = await api('PUT', `/v1/products/${products[0]}`, { name: `Margherita ${++edits}` });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await worker.runOnce(), 1);
    return receiver.received.at(-1)!;
  };
  return { endpoint, rotate, read, delivered };
}

const verifies = (secret: string, request: { body: string; headers: Record<string, string> }) => {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
};

test("a secret rotated twice within 24 hours: both replaced secrets keep signing until each one's 24 hours end", async (t) => {
  const start = Date.now();
  t.mock.timers.enable({ apis: ['Date'], now: start });
  const { endpoint, rotate, read, delivered } = await rotationWorld(t);
  const original = endpoint.secret;
  const first = await rotate(); // the original signs until start + 24 h
  t.mock.timers.setTime(start + 12 * HOUR);
  const second = await rotate(); // the first rotation's secret signs until start + 36 h
  assert.equal(second.previous_secret_expires_at, new Date(start + 36 * HOUR).toISOString());

  const meanwhile = await delivered();
  assert.equal(meanwhile.headers['webhook-signature'].split(' ').length, 3);
  for (const secret of [second.secret, first.secret, original])
    assert.ok(verifies(secret, meanwhile), 'every secret replaced in the last 24 hours verifies');

  t.mock.timers.setTime(start + 24 * HOUR + 1000);
  const afterOriginal = await delivered();
  assert.equal(afterOriginal.headers['webhook-signature'].split(' ').length, 2);
  assert.ok(verifies(second.secret, afterOriginal));
  assert.ok(verifies(first.secret, afterOriginal));
  assert.ok(!verifies(original, afterOriginal), "the original's 24 hours are over");
  assert.equal((await read()).previous_secret_expires_at, new Date(start + 36 * HOUR).toISOString());

  t.mock.timers.setTime(start + 36 * HOUR + 1000);
  const afterBoth = await delivered();
  assert.equal(afterBoth.headers['webhook-signature'].split(' ').length, 1);
  assert.ok(verifies(second.secret, afterBoth));
  assert.ok(!verifies(first.secret, afterBoth));
  assert.equal((await read()).previous_secret_expires_at, null);
});

test('a rotation also stores the replaced secret where the release before migration 0019 reads it', async (t) => {
  // Instances of that release, still running during a rolling restart, sign with this column.
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const authorization = await world.bearer();
  const post = (url: string, payload?: object) =>
    world.app.inject({ method: 'POST', url, headers: { authorization }, payload });
  const created = (
    await post('/v1/webhook-endpoints', { url: 'http://127.0.0.1:9/hook', events: ['product.updated'] })
  ).json();
  const stored = () =>
    world.db
      .selectFrom('webhook_endpoints')
      .select(['secret_encrypted', 'previous_secret_encrypted'])
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
  const before = await stored();
  assert.equal((await post(`/v1/webhook-endpoints/${created.id}/rotate-secret`)).statusCode, 200);
  assert.equal((await stored()).previous_secret_encrypted, before.secret_encrypted);
});

test('at most the 5 most recently replaced secrets keep signing', async (t) => {
  const { endpoint, rotate, delivered } = await rotationWorld(t);
  const secrets = [endpoint.secret];
  for (let i = 0; i < 7; i++) secrets.push((await rotate()).secret);
  const request = await delivered();
  assert.equal(request.headers['webhook-signature'].split(' ').length, 6);
  assert.deepEqual(
    secrets.map((secret) => verifies(secret, request)),
    [false, false, true, true, true, true, true, true],
  );
});

test('after rotate-fiscal-key the running server signs every delivery and stores new secrets under the new key', async (t) => {
  // A server owning DATA_DIR runs the rotation over its admin channel, on its own ctx.secrets.
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const { app, ctx, db, products } = world;
  const receiver = await startReceiver(t);
  const failures: unknown[] = [];
  const jobs = startBackgroundJobs(app, { pollMs: 20, log: (err) => failures.push(err) });
  t.after(() => jobs.stop());
  const authorization = await world.bearer();
  const api = (method: 'POST' | 'PUT', url: string, payload?: object) =>
    app.inject({ method, url, headers: { authorization }, payload });
  const subscribe = async (path: string) => {
    const res = await api('POST', '/v1/webhook-endpoints', {
      url: receiver.url(path),
      events: ['product.updated'],
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: number; secret: string };
  };
  const before = await subscribe('/before');
  const newKey = 'fiscal-key-b-of-at-least-thirty-two-characters';
  await COMMANDS['secrets rotate-fiscal-key'](
    { db, config: ctx.config, secrets: ctx.secrets },
    { new_key: newKey },
  );
  const after = await subscribe('/after');
  const stored = await db
    .selectFrom('webhook_endpoints')
    .select('secret_encrypted')
    .where('id', '=', after.id)
    .executeTakeFirstOrThrow();
  assert.equal(
    decryptSecret(stored.secret_encrypted, newKey),
    after.secret,
    'a new secret is stored under the new key',
  );

  assert.equal(
    (await api('PUT', `/v1/products/${products[0]}`, { name: 'Margherita nova' })).statusCode,
    200,
  );
  for (let i = 0; i < 200 && receiver.received.length < 2; i++) await sleep(25);
  assert.deepEqual(failures, []);
  const byPath = new Map(receiver.received.map((request) => [request.path, request]));
  assert.ok(verifies(before.secret, byPath.get('/before')!));
  assert.ok(verifies(after.secret, byPath.get('/after')!));
});

test('a delivery whose secret the server key cannot decrypt is a failed attempt on its schedule, not a claim at every lease', async (t) => {
  // FISCAL_TOKEN_KEY changed without rotate-fiscal-key: the stored secret is under the old key.
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver(t);
  const authorization = await world.bearer();
  const api = (method: 'POST' | 'PUT', url: string, payload: object) =>
    world.app.inject({ method, url, headers: { authorization }, payload });
  const created = await api('POST', '/v1/webhook-endpoints', {
    url: receiver.url(),
    events: ['product.updated'],
  });
  assert.equal(created.statusCode, 201, created.body);
  const edit = await api('PUT', `/v1/products/${world.products[0]}`, { name: 'Margherita do forno' });
  assert.equal(edit.statusCode, 200, edit.body);
  const otherKey = 'another-key-of-at-least-thirty-two-characters';
  const worker = worldWorker(t, world, { secretKey: otherKey, leaseMs: 1 });
  assert.equal(await worker.runOnce(), 1);
  await sleep(10);
  assert.equal(await worker.runOnce(), 0, 'the failed attempt waits for its retry, not for its lease');
  assert.equal(receiver.received.length, 0, 'nothing is sent unsigned');
  const delivery = await world.db
    .selectFrom('webhook_deliveries')
    .select(['id', 'status', 'attempts', 'next_attempt_at'])
    .executeTakeFirstOrThrow();
  assert.equal(delivery.status, 'pending');
  assert.equal(delivery.attempts, 1);
  assert.ok(delivery.next_attempt_at.getTime() > Date.now(), 'a retry is scheduled');
  const attempts = await world.db
    .selectFrom('webhook_attempts')
    .select(['error', 'status_code'])
    .where('delivery_id', '=', delivery.id)
    .execute();
  assert.equal(attempts.length, 1);
  assert.match(String(attempts[0].error), /cannot be decrypted/);
  assert.ok(!String(attempts[0].error).includes(otherKey));
});
