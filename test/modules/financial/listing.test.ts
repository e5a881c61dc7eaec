import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { buildFinancialWorld } from '../../support/financial-world.ts';
import { bearerFor } from '../../support/tokens.ts';
import { expectedMains, expectedTotals, fetchAll, getCashFlows, itemsOf, money } from './expected.ts';

const Q1 = { start_date: '2026-01-01', end_date: '2026-03-31' };

test('GET /v1/financial/cash-flows lists a period', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await buildFinancialWorld(ctx.db);
  const all = world.a.entries;
  const { authorization } = await bearerFor(ctx.db, [1], ['financial:read']);
  const get = (params: Record<string, string>) => getCashFlows(app, authorization, params);

  await t.test(
    'the first page carries the paging fields, the echoed period and whole-period totals',
    async () => {
      const res = await get(Q1);
      assert.equal(res.statusCode, 200);
      const body = res.json();
      const mains = expectedMains(all, Q1);
      assert.ok(mains.length > 250, `the fixture has ${mains.length} main entries`);
      assert.deepEqual(
        { ...body, cash_flows: undefined },
        {
          total: mains.length,
          count: 100,
          remaining: mains.length - 100,
          limit: 100,
          offset: 0,
          start_date: '2026-01-01',
          end_date: '2026-03-31',
          date_type: 'due_date',
          totals: expectedTotals(mains),
          cash_flows: undefined,
        },
      );
      assert.deepEqual(
        body.cash_flows.map((e: { id: number }) => e.id),
        mains.slice(0, 100).map((e) => e.id),
      );
    },
  );

  await t.test(
    'walking offset by 100 while remaining > 0 returns every main entry once, in (date, id) order',
    async () => {
      const { pages, entries } = await fetchAll(app, authorization, Q1);
      const expected = expectedMains(all, Q1);
      assert.equal(pages.length, Math.ceil(expected.length / 100));
      assert.deepEqual(
        entries.map((e: { id: number }) => e.id),
        expected.map((e) => e.id),
      );
      pages.forEach((page, i) => {
        assert.equal(page.offset, i * 100);
        assert.equal(page.count, page.cash_flows.length);
        assert.equal(page.remaining, expected.length - i * 100 - page.count);
        assert.deepEqual(page.totals, pages[0].totals);
      });
    },
  );

  await t.test('an offset past the end gives an empty page with the same total and totals', async () => {
    const body = (await get({ ...Q1, offset: '100000' })).json();
    assert.equal(body.count, 0);
    assert.equal(body.remaining, 0);
    assert.equal(body.total, expectedMains(all, Q1).length);
    assert.deepEqual(body.cash_flows, []);
  });

  await t.test(
    'every entry has the documented shape, with items under invoices and titles only',
    async () => {
      const { entries } = await fetchAll(app, authorization, Q1);
      const byId = new Map(all.map((e) => [e.id, e]));
      for (const entry of entries) {
        const row = byId.get(entry.id)!;
        assert.ok(['standalone', 'invoice', 'title'].includes(entry.entry_type));
        assert.equal(entry.value, money(row.cents));
        assert.equal(entry.due_date, row.due_date);
        assert.equal(entry.competence_date, row.competence_date);
        assert.equal(entry.paid_at, row.paid_at);
        assert.equal(entry.provider?.id ?? null, row.provider_id);
        assert.equal(entry.category_subcategory?.id ?? null, row.category_subcategory_id);
        assert.deepEqual(
          entry.items.map((i: { id: number }) => i.id),
          itemsOf(all, entry.id).map((i) => i.id),
        );
        for (const item of entry.items) {
          assert.equal(item.entry_type, entry.entry_type === 'invoice' ? 'invoice_item' : 'title_entry');
          assert.equal('items' in item, false);
        }
      }
    },
  );

  await t.test('an entry is serialised with names, two-decimal strings and ISO instants', async () => {
    const res = await get({ start_date: '2026-02-10', end_date: '2026-02-10' });
    const invoice = res.json().cash_flows.find((e: { id: number }) => e.id === 900);
    const supplier = world.a.lookups.suppliers[0];
    const [c1, c2] = world.a.lookups.costCentres;
    const common = {
      description: 'Special',
      due_date: '2026-02-10',
      competence_date: null,
      paid: false,
      paid_at: null,
      is_earning: false,
      provider: { id: supplier, name: `Supplier ${supplier}` },
      bank_account: null,
      payment_method: null,
    };
    assert.deepEqual(invoice, {
      id: 900,
      entry_type: 'invoice',
      value: '300.00',
      ...common,
      category_subcategory: { id: c1, name: `cost_centres ${c1}` },
      counts_for_result: false,
      items: [
        {
          id: 901,
          entry_type: 'invoice_item',
          value: '200.00',
          ...common,
          category_subcategory: { id: c1, name: `cost_centres ${c1}` },
          counts_for_result: true,
        },
        {
          id: 902,
          entry_type: 'invoice_item',
          value: '100.00',
          ...common,
          category_subcategory: { id: c2, name: `cost_centres ${c2}` },
          counts_for_result: true,
        },
      ],
    });
  });

  await t.test('no item ever appears loose in the main list', async () => {
    const { entries } = await fetchAll(app, authorization, Q1);
    const childIds = new Set(all.filter((e) => e.parent_id !== null).map((e) => e.id));
    assert.ok(entries.every((e: { id: number }) => !childIds.has(e.id)));
  });

  await t.test('deleted main entries, their children and deleted children are never returned', async () => {
    const { entries } = await fetchAll(app, authorization, Q1);
    const listed = new Set(
      entries.flatMap((e: { id: number; items: { id: number }[] }) => [e.id, ...e.items.map((i) => i.id)]),
    );
    const deleted = all.filter((e) => e.deleted);
    assert.ok(deleted.some((e) => e.parent_id === null) && deleted.some((e) => e.parent_id !== null));
    for (const e of deleted) assert.equal(listed.has(e.id), false, `deleted entry ${e.id} listed`);
    assert.equal(listed.has(930) || listed.has(931), false);
    const title = entries.find((e: { id: number }) => e.id === 910);
    assert.deepEqual(
      title.items.map((i: { id: number }) => i.id),
      [912],
    );
  });

  await t.test('the due-date regime ignores competence dates', async () => {
    const { entries } = await fetchAll(app, authorization, {
      start_date: '2026-03-31',
      end_date: '2026-03-31',
    });
    const ids = entries.map((e: { id: number }) => e.id);
    assert.ok(ids.includes(920) && ids.includes(922) && !ids.includes(921));
  });

  await t.test('the competence regime counts an entry without competence date by its due date', async () => {
    const day = { start_date: '2026-03-31', end_date: '2026-03-31', date_type: 'competence_date' };
    const body = (await get(day)).json();
    const ids = body.cash_flows.map((e: { id: number }) => e.id);
    assert.equal(body.date_type, 'competence_date');
    assert.ok(ids.includes(920) && ids.includes(921) && !ids.includes(922));
    assert.deepEqual(
      ids,
      expectedMains(all, day).map((e) => e.id),
    );
  });

  await t.test(
    'the competence regime lists and totals the whole period by the effective competence date',
    async () => {
      const params = { ...Q1, date_type: 'competence_date' };
      const { pages, entries } = await fetchAll(app, authorization, params);
      const expected = expectedMains(all, params);
      assert.notDeepEqual(
        expected.map((e) => e.id).sort(),
        expectedMains(all, Q1)
          .map((e) => e.id)
          .sort(),
      );
      assert.deepEqual(
        entries.map((e: { id: number }) => e.id),
        expected.map((e) => e.id),
      );
      assert.deepEqual(pages[0].totals, expectedTotals(expected));
    },
  );

  await t.test('end_date is included whole and start_date from its first moment', async () => {
    const body = (await get({ start_date: '2026-02-10', end_date: '2026-02-11' })).json();
    const dates = new Set(body.cash_flows.map((e: { due_date: string }) => e.due_date));
    assert.deepEqual([...dates].sort(), ['2026-02-10', '2026-02-11']);
    assert.equal(body.total, expectedMains(all, { start_date: '2026-02-10', end_date: '2026-02-11' }).length);
  });

  await t.test('an empty period answers zero totals with two decimals', async () => {
    const body = (await get({ start_date: '2030-01-01', end_date: '2030-01-31' })).json();
    assert.equal(body.total, 0);
    assert.deepEqual(body.totals, {
      total_earnings: '0.00',
      total_earnings_paid: '0.00',
      total_expenses: '0.00',
      total_expenses_paid: '0.00',
    });
  });
});
