// Whatever a receiver answers and whatever a restaurant does meanwhile, each attempt's outcome is
// recorded, and one attempt's record never takes its batch's others down with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { createEndpoint, type EventsWorld, eventsWorld, worldWorker } from '../../support/events-world.ts';
import { type Receiver, startReceiver } from '../../support/receiver.ts';

async function setUp(t: Parameters<typeof eventsWorld>[0]) {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const receiver = await startReceiver(t);
  const authorization = await world.bearer();
  const logged: unknown[] = [];
  const worker = worldWorker(t, world, {
    log: (err) => logged.push(err),
    timeoutMs: 2_000,
    schedule: { baseMs: 60_000, factor: 2, jitter: 0 },
  });
  const create = (path: string) => createEndpoint(world, receiver.url(path), { authorization });
  const edit = (name: string) =>
    world.app.inject({
      method: 'PUT',
      url: `/v1/products/${world.products[0]}`,
      headers: { authorization },
      payload: { name },
    });
  return { world, receiver, authorization, logged, worker, create, edit };
}

/**
 * A worker turn during which `endpoint` is deleted, once `arrivals` attempts have reached the
 * receiver; `release` then lets the held answers go. Resolves with the deliveries it claimed.
 */
async function turnDeleting(
  { world, receiver, authorization, worker }: Awaited<ReturnType<typeof setUp>>,
  endpoint: number,
  arrivals: number,
  release: () => void,
): Promise<number> {
  const turn = worker.runOnce();
  while (receiver.received.length < arrivals) await new Promise((resolve) => setTimeout(resolve, 10));
  const gone = await world.app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${endpoint}`,
    headers: { authorization },
  });
  assert.equal(gone.statusCode, 204);
  release();
  return turn;
}

type DeliveryState = { endpoint_id: number; status: string; retry_in_s: number };

async function states(world: EventsWorld): Promise<Record<number, DeliveryState>> {
  const { rows } = await sql<DeliveryState>`select endpoint_id, status,
      round(extract(epoch from next_attempt_at - now()))::int as retry_in_s
    from webhook_deliveries order by id`.execute(world.db);
  return Object.fromEntries(rows.map((row) => [row.endpoint_id, row]));
}

const answer = (receiver: Receiver, byPath: Record<string, [number, string]>) => {
  receiver.respond = (req, res) => {
    const [status, body] = byPath[req.url ?? ''] ?? [200, 'ok'];
    res.writeHead(status).end(body);
  };
};

test('an answer holding NUL bytes is recorded, and the other attempts of its batch with it', async (t) => {
  const { world, receiver, logged, worker, create, edit } = await setUp(t);
  const nulOk = await create('/nul-ok');
  const plain = await create('/plain');
  const nulFailing = await create('/nul-failing');
  answer(receiver, { '/nul-ok': [200, 'a\u0000b'], '/nul-failing': [500, '\u0000'] });
  assert.equal((await edit('Margherita Nula')).statusCode, 200);
  assert.equal(await worker.runOnce(), 3);
  assert.deepEqual(logged, []);
  const after = await states(world);
  assert.equal(after[nulOk].status, 'succeeded');
  assert.equal(after[plain].status, 'succeeded');
  assert.equal(after[nulFailing].status, 'pending');
  assert.equal(after[nulFailing].retry_in_s, 60, 'retried on its schedule, not at the end of its lease');
  const { rows } = await sql<{ response_body: string }>`select response_body from webhook_attempts
    join webhook_deliveries d on d.id = delivery_id where d.endpoint_id = ${nulOk}`.execute(world.db);
  assert.equal(rows[0].response_body, 'a\ufffdb');
});

test("an endpoint deleted during its attempt does not keep its batch's successes from being recorded", async (t) => {
  const setup = await setUp(t);
  const { world, receiver, logged, create, edit } = setup;
  const kept = await create('/kept');
  const deleted = await create('/deleted');
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  receiver.respond = (req, res) => {
    if (req.url === '/kept') void held.then(() => res.writeHead(204).end());
    else res.writeHead(204).end();
  };
  assert.equal((await edit('Margherita Apagada')).statusCode, 200);
  assert.equal(await turnDeleting(setup, deleted, 2, release), 2);
  assert.deepEqual(logged, []);
  const after = await states(world);
  assert.deepEqual(Object.keys(after), [String(kept)]);
  assert.equal(after[kept].status, 'succeeded', 'not sent again when its lease runs out');
});

test('a failed attempt of an endpoint deleted during it is dropped without an error', async (t) => {
  const setup = await setUp(t);
  const { world, receiver, logged, create, edit } = setup;
  const deleted = await create('/deleted');
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  receiver.respond = (_req, res) => void held.then(() => res.writeHead(500).end('down'));
  assert.equal((await edit('Margherita Falhada')).statusCode, 200);
  assert.equal(await turnDeleting(setup, deleted, 1, release), 1);
  assert.deepEqual(logged, []);
  assert.deepEqual(await states(world), {});
});

test('a success that ends after its endpoint was disabled is logged, but the delivery stays failed and the endpoint disabled', async (t) => {
  const { world, receiver, logged, worker, create, edit } = await setUp(t);
  const endpoint = await create('/late');
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  receiver.respond = (_req, res) => void held.then(() => res.writeHead(204).end());
  assert.equal((await edit('Margherita Tardia')).statusCode, 200);
  const turn = worker.runOnce();
  const deadline = Date.now() + 20_000;
  while (receiver.received.length < 1) {
    assert.ok(Date.now() < deadline, 'the attempt never reached the receiver');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Meanwhile the endpoint's 3 days of failures end (another instance's failed attempt, say):
  // disabled, and its pending deliveries, this one too, failed (recordOutcome).
  await sql`update webhook_endpoints set failing_since = now() - interval '4 days', disabled_at = now(),
    disabled_reason = 'every delivery failed for 3 days' where id = ${endpoint}`.execute(world.db);
  await sql`update webhook_deliveries set status = 'failed', completed_at = now() - interval '1 second'
    where endpoint_id = ${endpoint} and status = 'pending'`.execute(world.db);
  release();
  assert.equal(await turn, 1);
  assert.deepEqual(logged, []);
  const { rows } = await sql<{ status: string; completed_early: boolean; codes: number[] }>`
    select d.status, d.completed_at < now() - interval '500 milliseconds' as completed_early,
      array(select status_code from webhook_attempts a where a.delivery_id = d.id order by a.id) as codes
    from webhook_deliveries d where d.endpoint_id = ${endpoint}`.execute(world.db);
  assert.deepEqual(rows, [{ status: 'failed', completed_early: true, codes: [204] }]);
  const row = await world.db
    .selectFrom('webhook_endpoints')
    .select(['disabled_at', 'failing_since'])
    .where('id', '=', endpoint)
    .executeTakeFirstOrThrow();
  assert.ok(row.disabled_at, 'still disabled');
  assert.ok(row.failing_since, 'its failing streak is kept: the endpoint stays as it was disabled');
});
