// The worker hands a transaction's events to the endpoints after its commit (fanout.ts): once, to
// the endpoints that existed before the transaction, never for a rollback or a restaurant without
// an endpoint, and, on PostgreSQL, never before the commit nor twice with two instances at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../../src/db/database.ts';
import { inTransaction } from '../../../src/db/transaction.ts';
import { recordEvents } from '../../../src/modules/events/outbox.ts';
import { fanOut } from '../../../src/modules/webhooks/fanout.ts';
import { testDatabaseUrl } from '../../support/database.ts';
import { ALL_SCOPES, createEndpoint, type EventsWorld, eventsWorld } from '../../support/events-world.ts';

const withEndpoint = (world: EventsWorld, events = ['product.updated', 'menu.updated']) =>
  createEndpoint(world, 'http://127.0.0.1:9/hook', { events });

async function edit(
  world: EventsWorld,
  name: string,
  product = world.products[0],
  restaurant = world.restaurant,
) {
  const res = await world.app.inject({
    method: 'PUT',
    url: `/v1/products/${product}`,
    headers: { authorization: await world.bearer(ALL_SCOPES, [restaurant]) },
    payload: { name },
  });
  assert.equal(res.statusCode, 200, res.body);
}

/** Per endpoint, the event types of its deliveries, in the order they were written. */
async function delivered(world: EventsWorld): Promise<Record<number, string[]>> {
  const { rows } = await sql<{ endpoint_id: number; event_type: string }>`
    select endpoint_id, event_type from webhook_deliveries order by id`.execute(world.db);
  const out: Record<number, string[]> = {};
  for (const row of rows) {
    out[row.endpoint_id] ??= [];
    out[row.endpoint_id].push(row.event_type);
  }
  return out;
}

const marks = async (world: EventsWorld) =>
  (await sql<{ n: number }>`select count(*)::int as n from webhook_fanout`.execute(world.db)).rows[0].n;

test('a committed transaction is handed out once, to the endpoints made before it', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const first = await withEndpoint(world);
  await edit(world, 'Margherita 1');
  assert.deepEqual(await delivered(world), {}, 'nothing is delivered before the worker hands it out');
  assert.equal(await marks(world), 1);

  const second = await withEndpoint(world, ['product.updated']);
  await edit(world, 'Margherita 2');
  assert.equal(await fanOut(world.db), 2);
  assert.equal(await fanOut(world.db), 0);
  assert.deepEqual(await delivered(world), {
    [first]: ['product.updated', 'menu.updated', 'product.updated', 'menu.updated'],
    [second]: ['product.updated'],
  });
});

test('a disabled endpoint is handed nothing, its enabled neighbour everything', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const enabled = await withEndpoint(world, ['product.updated']);
  const disabled = await withEndpoint(world, ['product.updated']);
  await sql`update webhook_endpoints set disabled_at = now(), disabled_reason = 'every delivery failed for 3 days'
    where id = ${disabled}`.execute(world.db);
  await edit(world, 'Margherita 3');
  assert.equal(await fanOut(world.db), 1);
  assert.deepEqual(await delivered(world), { [enabled]: ['product.updated'] });
});

test('a rolled-back write and a restaurant without an endpoint leave nothing to hand out', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  await withEndpoint(world);
  await assert.rejects(
    inTransaction(world.db, async (trx) => {
      await recordEvents(trx, [{ restaurant_id: world.restaurant, type: 'product.updated', data: {} }]);
      throw new Error('the change failed');
    }),
    /the change failed/,
  );
  await edit(world, 'Uramaki 2', world.otherProduct, world.other);
  assert.equal(await marks(world), 0);
  assert.equal(await fanOut(world.db), 0);
  assert.deepEqual(await delivered(world), {});
});

test('on PostgreSQL, a transaction is handed out only once committed, and once with two instances', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL)',
}, async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const endpoint = await withEndpoint(world, ['product.updated']);
  const writer = new pg.Client({ connectionString: world.database.url });
  await writer.connect();
  // The world's database is dropped (with force) by an earlier after-hook than these.
  writer.on('error', () => {});
  t.after(() => writer.end());
  await writer.query('begin');
  await writer.query(
    `insert into events (restaurant_id, type, data) values ($1, 'product.updated', '{}');
     insert into webhook_fanout (restaurant_id, xid) values ($1, pg_current_xact_id())`.replace(
      /\$1/g,
      String(world.restaurant),
    ),
  );
  assert.equal(await fanOut(world.db), 0, 'a running transaction is not seen');
  await writer.query('commit');

  const second = await openDatabase({ databaseUrl: world.database.url, poolSize: 4 });
  for (let i = 0; i < 30; i++) await edit(world, `Margherita ${i}`);
  // Both instances take small batches at once until nothing is left.
  const drain = async (db: typeof world.db) => {
    let taken = 0;
    for (let n = await fanOut(db, 3); n; n = await fanOut(db, 3)) taken += n;
    return taken;
  };
  const taken = await Promise.all([drain(world.db), drain(second.db), drain(world.db), drain(second.db)]);
  assert.equal(
    taken.reduce((a, b) => a + b),
    31,
  );
  const { rows } = await sql<{ deliveries: number; events: number }>`
    select count(*)::int as deliveries, count(distinct event_id)::int as events
    from webhook_deliveries where endpoint_id = ${endpoint}`.execute(world.db);
  assert.deepEqual(rows[0], { deliveries: 31, events: 31 });
});

test('on PostgreSQL, an endpoint is handed every transaction that commits after its creation did, whatever its xid', {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL)',
}, async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const create = async (restaurant: number) =>
    createEndpoint(world, 'http://127.0.0.1:9/hook', {
      authorization: await world.bearer(ALL_SCOPES, [restaurant]),
    });
  const event = (restaurant: number, name: string) =>
    ({ restaurant_id: restaurant, type: 'product.updated', data: { name } }) as const;
  let early = 0;
  let before = 0;
  // A: the transaction takes its xid, the endpoint is created (and commits) on another connection,
  // then the transaction writes its events and commits: its xid is older than the endpoint's.
  // B: the transaction writes its events while B has no endpoint, one is created, then it commits.
  await inTransaction(world.db, async (trx) => {
    await sql`select pg_current_xact_id()`.execute(trx);
    early = await create(world.restaurant);
    await recordEvents(trx, [event(world.restaurant, 'xid before the endpoint')]);
  });
  await inTransaction(world.db, async (trx) => {
    await recordEvents(trx, [event(world.other, 'written before the endpoint')]);
    before = await create(world.other);
  });
  await fanOut(world.db);
  assert.deepEqual(await delivered(world), { [early]: ['product.updated'], [before]: ['product.updated'] });
  // A transaction that committed before the creation is not handed out (as before): nothing new.
  await create(world.restaurant);
  assert.equal(await fanOut(world.db), 0);
  assert.equal(await marks(world), 0);
});
