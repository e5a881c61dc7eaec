// A tag names what the answer depends on (conditional.ts): two spellings of one query (a parameter
// left to its default or given its default, an instant written two ways) are one answer and must
// get one tag, so a client switching spelling gets its 304; another query gets another tag.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordEvents } from '../../src/modules/events/outbox.ts';
import { buildTestApp } from '../support/app.ts';
import { eventsWorld, feedSettled } from '../support/events-world.ts';
import { menuWorld } from '../support/menu-world.ts';
import { bearerFor } from '../support/tokens.ts';

test('equivalent spellings of a query get one tag, other queries another', async (t) => {
  const { app, ctx } = await buildTestApp(t, { config: { rateLimitPerMinute: 1000 } });
  const world = await menuWorld(ctx.db);
  const { authorization } = await bearerFor(
    ctx.db,
    [world.restaurantId],
    ['financial:read', 'nfe-received:read'],
  );
  const tagOf = async (url: string, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method: 'GET', url, headers: { authorization, ...headers } });
    assert.equal(res.statusCode, 200, `${url} ${res.body}`);
    return String(res.headers.etag);
  };
  /** Every URL of `same` has one tag, and each of `other` another one. */
  async function oneTag(same: string[], other: string[]) {
    const tags = await Promise.all(same.map((url) => tagOf(url)));
    assert.equal(new Set(tags).size, 1, `${same.join(' | ')}: ${tags.join(' ')}`);
    for (const url of other) assert.notEqual(await tagOf(url), tags[0], url);
    // The tag of one spelling is a 304 for the other.
    const revalidated = await app.inject({
      method: 'GET',
      url: same.at(-1)!,
      headers: { authorization, 'if-none-match': tags[0] },
    });
    assert.equal(revalidated.statusCode, 304);
  }

  await t.test('cash flows: date_type, offset and their defaults', async () => {
    const period = '/v1/financial/cash-flows?start_date=2026-01-01&end_date=2026-01-31';
    await oneTag(
      [period, `${period}&date_type=due_date`, `${period}&offset=0`, `${period}&offset=0&date_type=due_date`],
      [`${period}&date_type=competence_date`, `${period}&offset=100`, `${period}&paid=false`],
    );
  });

  await t.test('NF-e list: instants to the second, pendente=false', async () => {
    const list = '/v1/nfe-received?start_date=2026-01-01T00:00:00Z';
    await oneTag(
      [
        `${list}&end_date=2026-01-31T00:00:00Z`,
        `${list}&end_date=2026-01-31T00:00:00.000Z`,
        `${list}&end_date=2026-01-30T21:00:00-03:00`,
        `${list}&end_date=2026-01-31T00:00:00Z&pendente=false`,
      ],
      [`${list}&end_date=2026-01-31T00:00:01Z`, `${list}&end_date=2026-01-31T00:00:00Z&pendente=true`],
    );
  });
});

test('event feed: the types as the feed reads them', async (t) => {
  const world = await eventsWorld(t);
  const authorization = await world.bearer(['products:read', 'menu:read']);
  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 1 } },
  ]);
  await feedSettled(world.db);
  const tagOf = async (url: string) => {
    const res = await world.app.inject({ url, headers: { authorization } });
    assert.equal(res.statusCode, 200, `${url} ${res.body}`);
    return String(res.headers.etag);
  };
  const all = await tagOf('/v1/events');
  assert.equal(await tagOf('/v1/events?limit=100'), all);
  const two = await tagOf('/v1/events?types=product.updated,product.created');
  assert.equal(await tagOf('/v1/events?types=product.created,%20product.updated'), two);
  assert.equal(await tagOf('/v1/events?types=product.created,product.updated,product.created'), two);
  assert.notEqual(await tagOf('/v1/events?types=product.updated'), two);
  assert.notEqual(await tagOf('/v1/events?limit=1'), all);
});
