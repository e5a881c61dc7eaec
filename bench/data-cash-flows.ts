// Cash-flow entries of one restaurant in bulk SQL (the generator of the former bench/cash-flows.ts,
// parameterised). 1/40 of the main entries are invoices or titles with two items each, so
// mains = entries / 1.05. random() after setseed() is a seeded PRNG and one session evaluates it
// in the same order every run, so the data set is the same every time.
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';

export type CashFlowSet = {
  restaurantId: number;
  entries: number;
  /** Due dates spread uniformly over `days` days from `firstDay`. */
  firstDay: string;
  days: number;
};

const LOOKUPS = [
  ['suppliers', 50],
  ['bank_accounts', 5],
  ['payment_methods', 8],
  ['cost_centres', 30],
] as const;

export async function seedCashFlows(db: Db, set: CashFlowSet): Promise<void> {
  const r = set.restaurantId;
  const mains = Math.round(set.entries / 1.05);
  // Explicit ids, one range per restaurant: the same rows (and the same (date, id) order) every run.
  const ids = r * 10_000_000;
  const ref = (g: string) => `${r * 1000} + ${g}`;
  await db.connection().execute(async (conn) => {
    const run = (query: string) => sql.raw(query).execute(conn);
    for (const [table, n] of LOOKUPS) {
      await run(`insert into ${table} (id, restaurant_id, name)
        select ${ref('g')}, ${r}, '${table} ' || g from generate_series(1, ${n}) g`);
    }
    // Generated rows are consistent by construction: skip the per-row foreign-key triggers, and
    // insert in date order so the date indexes grow at one end (about twice as fast).
    await run('set session_replication_role = replica');
    await run('set max_parallel_workers_per_gather = 0');
    await run(`select setseed(${(r % 100) / 100})`);
    await run(`insert into cash_flows (id, restaurant_id, entry_type, description, value, due_date, competence_date,
        paid, paid_at, is_earning, provider_id, bank_account_id, payment_method_id, category_subcategory_id,
        counts_for_result, deleted_at)
      select ${ids} + g, ${r}, case when g % 80 = 0 then 'invoice' when g % 40 = 0 then 'title' else 'standalone' end,
        'Entry ' || g, round((random() * 5000)::numeric, 2) + 0.01,
        d, case when x < 0.3 then null else d - (random() * 40)::int end,
        p, case when p then (d + time '12:00') at time zone 'UTC' end, random() < 0.45,
        case when random() < 0.2 then null else ${ref('1 + (random() * 49)::int')} end,
        case when random() < 0.2 then null else ${ref('1 + (random() * 4)::int')} end,
        case when random() < 0.2 then null else ${ref('1 + (random() * 7)::int')} end,
        case when random() < 0.2 then null else ${ref('1 + (random() * 29)::int')} end,
        g % 40 <> 0, case when random() < 0.02 then timestamptz '2026-01-01T00:00:00Z' end
      from (select g, date '${set.firstDay}' + (random() * ${set.days - 1})::int as d, random() as x,
              random() < 0.4 as p
            from generate_series(1, ${mains}) g) s
      order by d, g`);
    await run(`insert into cash_flows (id, restaurant_id, parent_id, entry_type, description, value, due_date,
        competence_date, paid, paid_at, is_earning, provider_id, bank_account_id, payment_method_id,
        category_subcategory_id, counts_for_result)
      select ${ids + mains} + row_number() over (order by c.id, k), ${r}, c.id,
        case c.entry_type when 'invoice' then 'invoice_item' else 'title_entry' end, 'Item ' || k || ' of ' || c.id,
        case when k = 1 then round(c.value / 2, 2) else c.value - round(c.value / 2, 2) end,
        c.due_date, c.competence_date, c.paid, c.paid_at, c.is_earning, c.provider_id, c.bank_account_id,
        c.payment_method_id, ${ref('1 + (random() * 29)::int')}, true
      from cash_flows c cross join generate_series(1, 2) k
      where c.restaurant_id = ${r} and c.parent_id is null and c.entry_type <> 'standalone'`);
    await run('reset session_replication_role');
  });
}
