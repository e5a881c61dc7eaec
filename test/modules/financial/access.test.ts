import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { buildFinancialWorld } from '../../support/financial-world.ts';
import { bearerFor, sessionFor } from '../../support/tokens.ts';
import { expectedMains, expectedTotals, fetchAll } from './expected.ts';

const PERIOD = 'start_date=2026-01-01&end_date=2026-03-31';
const URL = `/v1/financial/cash-flows?${PERIOD}`;

test('who may read cash flows', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await buildFinancialWorld(ctx.db);
  const get = (authorization: string | undefined, url = URL) =>
    app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
  const idsOf = (body: { cash_flows: { id: number; items: { id: number }[] }[] }) =>
    body.cash_flows.flatMap((e) => [e.id, ...e.items.map((i) => i.id)]);

  await t.test('without a credential the answer is 401 invalid_token', async () => {
    const res = await get(undefined);
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().key, 'invalid_token');
  });

  await t.test('an unknown token is 401, even with an invalid query', async () => {
    const res = await get('Bearer cat_unknown', '/v1/financial/cash-flows?paid=1');
    assert.equal(res.statusCode, 401);
  });

  await t.test('a token without financial:read is 403 insufficient_scope', async () => {
    const { authorization } = await bearerFor(ctx.db, [1], ['products:read', 'menu:read']);
    const res = await get(authorization);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'insufficient_scope');
  });

  await t.test("restaurant B's entries never appear in restaurant A's listing", async () => {
    const { authorization } = await bearerFor(ctx.db, [1], ['financial:read']);
    const { pages, entries } = await fetchAll(app, authorization, {
      start_date: '2026-01-01',
      end_date: '2026-03-31',
    });
    const ofB = new Set(world.b.entries.map((e) => e.id));
    assert.ok(entries.every((e: { id: number }) => !ofB.has(e.id)));
    assert.deepEqual(
      pages[0].totals,
      expectedTotals(expectedMains(world.a.entries, { start_date: '2026-01-01', end_date: '2026-03-31' })),
    );
  });

  await t.test('a restaurant_id the credential does not authorize is 403 restaurant_forbidden', async () => {
    const { authorization } = await bearerFor(ctx.db, [1], ['financial:read']);
    const res = await get(authorization, `${URL}&restaurant_id=2`);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'restaurant_forbidden');
  });

  await t.test(
    'a credential for several restaurants must name one, and then sees only that one',
    async () => {
      const { authorization } = await bearerFor(ctx.db, [1, 2], ['financial:read']);
      const missing = await get(authorization);
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().key, 'restaurant_id_required');
      const b = (await get(authorization, `${URL}&restaurant_id=2`)).json();
      const expected = expectedMains(world.b.entries, { start_date: '2026-01-01', end_date: '2026-03-31' });
      assert.equal(b.total, expected.length);
      assert.deepEqual(b.totals, expectedTotals(expected));
      const ofA = new Set(world.a.entries.map((e) => e.id));
      assert.ok(idsOf(b).every((id) => !ofA.has(id)));
    },
  );

  await t.test("a restaurant session reads its own restaurant and is refused another's", async () => {
    const session = sessionFor(2, ctx.secrets.sessionSecret).authorization;
    const own = await get(session);
    assert.equal(own.statusCode, 200);
    assert.equal(
      own.json().total,
      expectedMains(world.b.entries, { start_date: '2026-01-01', end_date: '2026-03-31' }).length,
    );
    const other = await get(session, `${URL}&restaurant_id=1`);
    assert.equal(other.statusCode, 403);
  });
});
