import assert from 'node:assert/strict';
import { test } from 'node:test';
import { queuePing } from '../../../src/modules/webhooks/endpoint-repository.ts';
import { createEndpoint, eventsWorld } from '../../support/events-world.ts';

test('a NUL character in the url or the description is 400 invalid_body naming the field, not a 500', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const authorization = await world.bearer();
  for (const [field, payload] of [
    ['url', { url: 'http://127.0.0.1:9/ho\u0000ok', events: ['product.updated'] }],
    [
      'description',
      { url: 'http://127.0.0.1:9/hook', events: ['product.updated'], description: 'P\u0000OS' },
    ],
  ] as const) {
    const res = await world.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization },
      payload,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().key, 'invalid_body');
    assert.equal(res.json().errors[0].field, field);
  }
});

test('a restaurant has at most 16 webhook endpoints, counted one creation after another when they run in parallel', async (t) => {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const authorization = await world.bearer();
  const create = (n: number) =>
    world.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization },
      payload: { url: `http://127.0.0.1:9/hook-${n}`, events: ['product.updated'] },
    });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, n) => create(n)));
  const created = answers.filter((res) => res.statusCode === 201);
  const refused = answers.filter((res) => res.statusCode !== 201);
  assert.equal(created.length, 16);
  assert.deepEqual(
    refused.map((res) => [res.statusCode, res.json().key]),
    Array(4).fill([409, 'webhook_endpoint_limit']),
  );
  // Another restaurant counts its own.
  const other = await world.bearer(undefined, [world.other]);
  await createEndpoint(world, 'http://127.0.0.1:9/other', { authorization: other });
  // A deleted endpoint frees its place.
  const freed = await world.app.inject({
    method: 'DELETE',
    url: `/v1/webhook-endpoints/${created[0].json().id}`,
    headers: { authorization },
  });
  assert.equal(freed.statusCode, 204);
  assert.equal((await create(99)).statusCode, 201);
});

/** The events world with one endpoint of restaurant A, and a bearer of A. */
async function worldWithEndpoint(t: Parameters<typeof eventsWorld>[0]) {
  const world = await eventsWorld(t, { webhookAllowPrivate: true });
  const authorization = await world.bearer();
  const id = await createEndpoint(world, 'http://127.0.0.1:9/hook', { authorization });
  return { world, authorization, id };
}

test('a ping for an endpoint deleted while it was being queued queues nothing (the route answers 404), not a foreign-key error (a 500)', async (t) => {
  const { world, id } = await worldWithEndpoint(t);
  // The route found the endpoint; then it is deleted before the ping is written.
  await world.db.deleteFrom('webhook_endpoints').where('id', '=', id).execute();
  assert.equal(await queuePing(world.db, world.restaurant, id), undefined);
  const { count } = await world.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  assert.equal(Number(count), 0);
});

test('a DELETE sent again with its Idempotency-Key (the client retries it after a lost answer) replays the 204, not a 404', async (t) => {
  const { world, authorization, id } = await worldWithEndpoint(t);
  const remove = (key: string) =>
    world.app.inject({
      method: 'DELETE',
      url: `/v1/webhook-endpoints/${id}`,
      headers: { authorization, 'idempotency-key': key },
    });
  const first = await remove('delete-once');
  assert.equal(first.statusCode, 204, first.body);
  const again = await remove('delete-once');
  assert.equal(again.statusCode, 204, again.body);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal((await remove('another-key')).statusCode, 404, 'a new key deletes again: nothing is left');
});
