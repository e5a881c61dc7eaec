import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { buildFinancialWorld } from '../../support/financial-world.ts';
import { bearerFor } from '../../support/tokens.ts';
import { expectedMains, expectedTotals, fetchAll, type Params } from './expected.ts';

const Q1 = { start_date: '2026-01-01', end_date: '2026-03-31' };
type Listed = { id: number; items: { id: number }[] };

test('cash-flow filters', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await buildFinancialWorld(ctx.db);
  const all = world.a.entries;
  const { lookups } = world.a;
  const { authorization } = await bearerFor(ctx.db, [1], ['financial:read']);

  /** The whole listing and its totals equal the brute-force answer, and the filter narrowed it. */
  async function agrees(params: Params) {
    const { pages, entries } = await fetchAll(app, authorization, params);
    const expected = expectedMains(all, params);
    assert.ok(expected.length > 0, `${JSON.stringify(params)} selects nothing in the fixture`);
    assert.ok(
      expected.length < expectedMains(all, { ...Q1, date_type: params.date_type ?? 'due_date' }).length,
    );
    assert.deepEqual(
      entries.map((e: Listed) => e.id),
      expected.map((e) => e.id),
    );
    assert.equal(pages[0].total, expected.length);
    assert.deepEqual(pages[0].totals, expectedTotals(expected));
    return entries as Listed[];
  }

  await t.test('paid=true lists only paid entries and paid=false only open ones', async () => {
    for (const paid of ['true', 'false']) {
      const entries = await agrees({ ...Q1, paid });
      assert.ok(entries.every((e) => String((e as unknown as { paid: boolean }).paid) === paid));
    }
  });

  await t.test(
    'is_earning=true lists revenues and is_earning=false expenses, with the other totals at zero',
    async () => {
      await agrees({ ...Q1, is_earning: 'true' });
      const { pages } = await fetchAll(app, authorization, { ...Q1, is_earning: 'true' });
      assert.equal(pages[0].totals.total_expenses, '0.00');
      await agrees({ ...Q1, is_earning: 'false' });
    },
  );

  await t.test('provider_id, bank_account_id and payment_method_id filter on the main entry', async () => {
    await agrees({ ...Q1, provider_id: String(lookups.suppliers[1]) });
    await agrees({ ...Q1, bank_account_id: String(lookups.bankAccounts[0]) });
    await agrees({ ...Q1, payment_method_id: String(lookups.paymentMethods[2]) });
  });

  await t.test('filters combine with AND, in both date regimes', async () => {
    const combined = { paid: 'false', is_earning: 'false', provider_id: String(lookups.suppliers[0]) };
    await agrees({ ...Q1, ...combined });
    await agrees({ ...Q1, ...combined, date_type: 'competence_date' });
  });

  await t.test('a filter on an id of another restaurant selects nothing', async () => {
    const res = await app.inject({
      url: `/v1/financial/cash-flows?start_date=2026-01-01&end_date=2026-03-31&provider_id=${world.b.lookups.suppliers[0]}`,
      headers: { authorization },
    });
    assert.equal(res.json().total, 0);
  });

  await t.test(
    'category_subcategory_id matches a main entry by its own cost centre or any live item of it',
    async () => {
      for (const centre of lookups.costCentres) {
        await agrees({ ...Q1, category_subcategory_id: String(centre) });
      }
      const [c1, c2, c3, c4] = lookups.costCentres;
      const ids = async (centre: number) =>
        (
          await fetchAll(app, authorization, {
            start_date: '2026-02-10',
            end_date: '2026-02-11',
            category_subcategory_id: String(centre),
          })
        ).entries;
      // Invoice 900: itself and item 901 in c1, item 902 in c2.
      assert.ok((await ids(c1)).some((e: Listed) => e.id === 900));
      const byItem = (await ids(c2)).find((e: Listed) => e.id === 900);
      assert.ok(byItem, 'an invoice matches through one of its items');
      assert.deepEqual(
        byItem.items.map((i: { id: number }) => i.id),
        [901, 902],
        'its items are listed in full',
      );
      assert.equal(byItem.value, '300.00');
      // Title 910: its only c3 item is deleted, its c4 item is live.
      assert.ok(
        !(await ids(c3)).some((e: Listed) => e.id === 910),
        'a deleted item does not make its parent match',
      );
      assert.ok((await ids(c4)).some((e: Listed) => e.id === 910));
    },
  );

  await t.test(
    'with a cost-centre filter the totals count each matching main entry once, at its full value',
    async () => {
      const [, c2] = lookups.costCentres;
      const day = { start_date: '2026-02-10', end_date: '2026-02-10', category_subcategory_id: String(c2) };
      const { pages, entries } = await fetchAll(app, authorization, day);
      const expected = expectedMains(all, day);
      assert.deepEqual(
        entries.map((e: Listed) => e.id),
        expected.map((e) => e.id),
      );
      assert.deepEqual(pages[0].totals, expectedTotals(expected));
    },
  );
});
