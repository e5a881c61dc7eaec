// The listing keeps each period's count, totals and page boundaries in memory (cash-flows-cache.ts).
// These tests warm that cache on two instances, write the way the importer or psql would, and
// check every page, byte for byte, against the reference listing (reference-listing.ts), which
// reads everything from the database on every request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { register } from 'prom-client';
import { importData } from '../../../src/import/import.ts';
import { twoInstances } from '../../support/app.ts';
import { buildFinancialWorld } from '../../support/financial-world.ts';
import { bearerFor } from '../../support/tokens.ts';
import type { Params } from './expected.ts';
import { REFERENCE_URL, referenceRoute } from './reference-listing.ts';

const Q1 = { start_date: '2026-01-01', end_date: '2026-03-31' };

/** How many pages were answered from memory so far: rendered, or read with a summary kept. */
async function servedFromMemory(source: 'page' | 'summary'): Promise<number> {
  const metric = await register.getSingleMetric('cash_flow_page_reads_total')?.get();
  return metric?.values.find((v) => v.labels.source === source)?.value ?? 0;
}

test('cash-flow pages equal the uncached listing through every kind of write, on every instance', async (t) => {
  const { one, two } = await twoInstances(t, {
    routes: referenceRoute,
    config: { rateLimitPerMinute: 1_000_000 },
  });
  const db = one.ctx.db;
  const world = await buildFinancialWorld(db);
  const { suppliers, costCentres } = world.a.lookups;
  const a = await bearerFor(db, [1], ['financial:read']);
  const b = await bearerFor(db, [2], ['financial:read']);
  const PARAMS: Params[] = [
    Q1,
    { ...Q1, date_type: 'competence_date' },
    { ...Q1, paid: 'false' },
    { ...Q1, category_subcategory_id: String(costCentres[2]) },
    { ...Q1, is_earning: 'false', provider_id: String(suppliers[0]) },
    { start_date: '2026-02-10', end_date: '2026-02-11' },
    { start_date: '2030-01-01', end_date: '2030-01-31' },
  ];

  const get = (app: FastifyInstance, url: string, authorization: string, params: Params) =>
    app.inject({ method: 'GET', url: `${url}?${new URLSearchParams(params)}`, headers: { authorization } });

  /** Every page as the contract walks them, plus odd and past-the-end offsets: the same bytes. */
  async function agrees(app: FastifyInstance, params: Params, authorization = a.authorization) {
    const same = async (offset: number) => {
      const query = { ...params, offset: String(offset) };
      const [cached, reference] = await Promise.all([
        get(app, '/v1/financial/cash-flows', authorization, query),
        get(app, REFERENCE_URL, authorization, query),
      ]);
      assert.equal(cached.statusCode, 200, cached.body);
      assert.equal(cached.body, reference.body, `${JSON.stringify(query)} differs`);
      // Apart from what differs by request (date, rate limit) or by route (cache-control on /v1,
      // the ETag of the data route).
      const comparable = (res: typeof cached) =>
        Object.entries(res.headers).filter(
          ([name]) =>
            !['date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'cache-control', 'etag'].includes(name),
        );
      assert.deepEqual(comparable(cached), comparable(reference));
      return cached.json();
    };
    let page = await same(0);
    for (let offset = 100; page.remaining > 0; offset += 100) page = await same(offset);
    for (const offset of [137, page.total, page.total + 250, 2147483647]) await same(offset);
  }
  const everywhere = async () => {
    for (const app of [one.app, two.app]) for (const params of PARAMS) await agrees(app, params);
  };
  /** Both instances hold the summary of every period and filter set (one read each is enough). */
  const warm = async () => {
    for (const app of [one.app, two.app])
      for (const params of PARAMS) await get(app, '/v1/financial/cash-flows', a.authorization, params);
  };
  const main = (id: number, due: string, more = '') =>
    sql.raw(`insert into cash_flows (id, restaurant_id, entry_type, description, value, due_date, is_earning,
      provider_id, paid) values (${id}, 1, ${more ? `'invoice'` : `'standalone'`}, 'New', 10.50, '${due}', false,
      ${suppliers[0]}, false)`);

  await t.test(
    'a page read again is sent from memory, and a new offset seeks from the kept summary',
    async () => {
      await everywhere();
      const [pages, summaries] = [await servedFromMemory('page'), await servedFromMemory('summary')];
      await agrees(one.app, Q1);
      assert.ok((await servedFromMemory('page')) > pages, 'no page was sent from memory');
      const res = await get(one.app, '/v1/financial/cash-flows', a.authorization, { ...Q1, offset: '150' });
      assert.equal(
        res.body,
        (await get(one.app, REFERENCE_URL, a.authorization, { ...Q1, offset: '150' })).body,
      );
      assert.ok((await servedFromMemory('summary')) > summaries, 'the summary was not reused');
    },
  );

  const writes: [string, () => Promise<unknown>][] = [
    [
      'an entry inserted in SQL on the first day moves every page boundary',
      () => main(70001, '2026-01-01').execute(db),
    ],
    [
      'an item inserted in SQL makes its invoice match a cost centre',
      async () => {
        await main(70002, '2026-02-10', 'invoice').execute(db);
        await sql`insert into cash_flows (id, restaurant_id, parent_id, entry_type, value, due_date, is_earning,
          category_subcategory_id) values (70003, 1, 70002, 'invoice_item', 10.50, '2026-02-10', false,
          ${costCentres[2]})`.execute(db);
      },
    ],
    [
      'an item inserted in SQL under a standalone entry, which lists no items',
      () => {
        const standalone = world.a.entries.find(
          (e) => e.entry_type === 'standalone' && !e.deleted && e.due_date.startsWith('2026-02'),
        )!;
        return sql`insert into cash_flows (id, restaurant_id, parent_id, entry_type, value, due_date, is_earning)
          values (70004, 1, ${standalone.id}, 'invoice_item', 1, '2026-02-01', false)`.execute(db);
      },
    ],
    [
      'a value changed in SQL',
      () => sql`update cash_flows set value = value + 1 where id = 70001`.execute(db),
    ],
    [
      'a due date moved out of the period',
      () => sql`update cash_flows set due_date = '2026-05-01' where id = 70001`.execute(db),
    ],
    [
      'entries paid in SQL leave the paid=false pages',
      () =>
        sql`update cash_flows set paid = true where restaurant_id = 1 and parent_id is null and id % 7 = 0`.execute(
          db,
        ),
    ],
    [
      'a soft delete',
      () => sql`update cash_flows set deleted_at = now() where restaurant_id = 1 and id % 11 = 0`.execute(db),
    ],
    [
      'a hard delete of an invoice and its items',
      () => sql`delete from cash_flows where id in (70003, 70002)`.execute(db),
    ],
    [
      'an import of an invoice with items, then its re-import with other values',
      async () => {
        const invoice = {
          id: 70010,
          restaurant_id: 1,
          entry_type: 'invoice',
          value: 30,
          due_date: '2026-01-02',
          is_earning: false,
          items: [
            { id: 70011, value: 10, category_subcategory_id: costCentres[2] },
            { id: 70012, value: 20 },
          ],
        };
        await importData(db, { cash_flows: [invoice] });
        await everywhere();
        await warm();
        await importData(db, {
          cash_flows: [{ ...invoice, value: 10, due_date: '2026-03-30', items: [invoice.items[0]] }],
        });
      },
    ],
    ...(
      [
        ['suppliers', suppliers[0]],
        ['bank_accounts', world.a.lookups.bankAccounts[0]],
        ['payment_methods', world.a.lookups.paymentMethods[0]],
        ['cost_centres', costCentres[2]],
      ] as const
    ).map(([table, id]): [string, () => Promise<unknown>] => [
      `a name in ${table} changed in SQL`,
      () => sql`update ${sql.table(table)} set name = name || ' (renamed)' where id = ${id}`.execute(db),
    ]),
  ];
  for (const [name, write] of writes) {
    await t.test(`${name}: every page and total follows at once on both instances`, async () => {
      await warm();
      await write();
      await everywhere();
    });
  }

  await t.test("restaurants never share an entry, and one's writes keep the other's summary", async () => {
    await agrees(one.app, Q1, b.authorization);
    await agrees(one.app, Q1);
    const before = await servedFromMemory('page');
    await main(70020, '2026-01-01').execute(db);
    await agrees(one.app, Q1, b.authorization);
    assert.ok((await servedFromMemory('page')) > before, "a write in A invalidated B's pages");
    await agrees(one.app, Q1);
  });

  await t.test('a truncate empties every listing at once', async () => {
    await warm();
    await sql`truncate cash_flows`.execute(db);
    await everywhere();
    const res = await get(two.app, '/v1/financial/cash-flows', a.authorization, Q1);
    assert.equal(res.json().total, 0);
  });
});
