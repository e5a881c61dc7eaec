// Cash-flow listing at scale: one restaurant with 1,000,000 entries over three years (about
// 80,000 main entries in a 92-day window), first- and last-page latency through the HTTP route
// on a real port. PostgreSQL from DATABASE_URL (a database `comanda_bench_cash_flows` is created
// on that server and kept for --reuse), or in-memory PGlite with --pglite.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/cash-flows.ts [--reuse]
//   node bench/cash-flows.ts --pglite [--entries 1000000] [--requests 50]
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { type DatabaseHandle, type Db, openDatabase, PGLITE_PARSERS } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { issueAccessToken } from '../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../src/modules/auth/api-keys.ts';

const { values: args } = parseArgs({
  options: {
    pglite: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    entries: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '50' },
  },
});
const REQUESTS = Number(args.requests);
const BENCH_DB = 'comanda_bench_cash_flows';

async function openBenchDatabase(): Promise<{ database: DatabaseHandle; fresh: boolean }> {
  if (args.pglite) {
    const pglite = await PGlite.create({ parsers: PGLITE_PARSERS });
    return { database: await openDatabase({ pglite }), fresh: true };
  }
  const base = process.env.DATABASE_URL;
  if (!base?.startsWith('postgres'))
    throw new Error('set DATABASE_URL to a postgres:// URL, or pass --pglite');
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const exists = (await admin.query('select 1 from pg_database where datname = $1', [BENCH_DB])).rowCount;
  if (exists && !args.reuse) await admin.query(`drop database ${BENCH_DB} with (force)`);
  if (!exists || !args.reuse) await admin.query(`create database ${BENCH_DB}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${BENCH_DB}`;
  return { database: await openDatabase({ databaseUrl: url.toString() }), fresh: !exists || !args.reuse };
}

/**
 * 1,000,000 rows in bulk SQL: 1/40 of the main entries are invoices or titles with two items
 * each, so mains = entries / 1.05. random() after setseed() is a seeded PRNG, and one session
 * evaluates it in the same order every run, so the data set is the same every time.
 */
async function seedCashFlows(db: Db, entries: number): Promise<void> {
  const mains = Math.round(entries / 1.05);
  await db.connection().execute(async (conn) => {
    const run = (query: string) => sql.raw(query).execute(conn);
    await run(`insert into restaurants (id, name) values (1, 'Bench restaurant')`);
    for (const [table, n] of [
      ['suppliers', 50],
      ['bank_accounts', 5],
      ['payment_methods', 8],
      ['cost_centres', 30],
    ] as const) {
      await run(
        `insert into ${table} (id, restaurant_id, name) select g, 1, '${table} ' || g from generate_series(1, ${n}) g`,
      );
    }
    await run('select setseed(0.42)');
    await run(`insert into cash_flows (id, restaurant_id, entry_type, description, value, due_date, competence_date,
        paid, paid_at, is_earning, provider_id, bank_account_id, payment_method_id, category_subcategory_id,
        counts_for_result, deleted_at)
      select g, 1, case when g % 80 = 0 then 'invoice' when g % 40 = 0 then 'title' else 'standalone' end,
        'Entry ' || g, round((random() * 5000)::numeric, 2) + 0.01,
        d, case when r < 0.3 then null else d - (random() * 40)::int end,
        p, case when p then (d + time '12:00') at time zone 'UTC' end, random() < 0.45,
        case when random() < 0.2 then null else 1 + (random() * 49)::int end,
        case when random() < 0.2 then null else 1 + (random() * 4)::int end,
        case when random() < 0.2 then null else 1 + (random() * 7)::int end,
        case when random() < 0.2 then null else 1 + (random() * 29)::int end,
        g % 40 <> 0, case when random() < 0.02 then now() end
      from (select g, date '2024-01-01' + (random() * 1095)::int as d, random() as r, random() < 0.4 as p
            from generate_series(1, ${mains}) g) s`);
    await run(`insert into cash_flows (id, restaurant_id, parent_id, entry_type, description, value, due_date,
        competence_date, paid, paid_at, is_earning, provider_id, bank_account_id, payment_method_id,
        category_subcategory_id, counts_for_result)
      select ${mains} + row_number() over (order by c.id, k), 1, c.id,
        case c.entry_type when 'invoice' then 'invoice_item' else 'title_entry' end, 'Item ' || k || ' of ' || c.id,
        case when k = 1 then round(c.value / 2, 2) else c.value - round(c.value / 2, 2) end,
        c.due_date, c.competence_date, c.paid, c.paid_at, c.is_earning, c.provider_id, c.bank_account_id,
        c.payment_method_id, 1 + (random() * 29)::int, true
      from cash_flows c cross join generate_series(1, 2) k
      where c.restaurant_id = 1 and c.parent_id is null and c.entry_type <> 'standalone'`);
  });
  await sql`vacuum analyze cash_flows`.execute(db);
}

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { median: at(0.5), p99: at(0.99), min: sorted[0], max: sorted.at(-1)! };
}

async function measure(base: string, authorization: string, query: Record<string, string>) {
  const url = `${base}/v1/financial/cash-flows?${new URLSearchParams(query)}`;
  const once = async () => {
    const started = performance.now();
    const res = await fetch(url, { headers: { authorization } });
    const body = (await res.json()) as { total: number; count: number; remaining: number };
    if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, body };
  };
  for (let i = 0; i < 3; i++) await once();
  const samples: number[] = [];
  let last = (await once()).body;
  for (let i = 0; i < REQUESTS; i++) {
    const { ms, body } = await once();
    samples.push(ms);
    last = body;
  }
  return { ...stats(samples), total: last.total, count: last.count };
}

const { database, fresh } = await openBenchDatabase();
const migrated = await migrate(database.db);
if (migrated.length) console.log(`migrated: ${migrated.join(', ')}`);
if (fresh) {
  const started = performance.now();
  await seedCashFlows(database.db, Number(args.entries));
  console.log(`seeded ${args.entries} entries in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} else {
  await sql`analyze cash_flows`.execute(database.db);
}

const config = {
  ...parseConfig({ LOG_LEVEL: 'warn', DATABASE_URL: 'memory://' }),
  rateLimitPerMinute: 1_000_000,
};
const app = await buildApp({
  config,
  database,
  db: database.db,
  secrets: {
    sessionSecret: 'bench-session-secret-of-32-characters!!',
    fiscalTokenKey: 'bench-fiscal-key-of-at-least-32-chars!!',
  },
});
const base = await app.listen({ port: 0, host: '127.0.0.1' });
const key = await storeApiKey(database.db, { name: 'bench', restaurantIds: [1], scopes: ['financial:read'] });
const token = await issueAccessToken(
  database.db,
  { apiKeyId: key.id, restaurantIds: [1], scopes: ['financial:read'] },
  3600,
);
const authorization = `Bearer ${token}`;

const WINDOW = { start_date: '2025-04-01', end_date: '2025-07-01' };
const scenarios: [string, Record<string, string>][] = [
  ['due_date', {}],
  ['competence_date', { date_type: 'competence_date' }],
  ['due_date paid=false', { paid: 'false' }],
  ['due_date category_subcategory_id=7', { category_subcategory_id: '7' }],
  ['due_date provider_id=13', { provider_id: '13' }],
];
const rows = [];
for (const [name, filters] of scenarios) {
  const query = { ...WINDOW, ...filters };
  const first = await measure(base, authorization, query);
  const lastOffset = String(Math.max(0, Math.floor((first.total - 1) / 100) * 100));
  const last = await measure(base, authorization, { ...query, offset: lastOffset });
  const fmt = (n: number) => n.toFixed(1);
  rows.push({
    scenario: name,
    page: 'first',
    offset: 0,
    total: first.total,
    median_ms: fmt(first.median),
    p99_ms: fmt(first.p99),
    max_ms: fmt(first.max),
  });
  rows.push({
    scenario: name,
    page: 'last',
    offset: Number(lastOffset),
    total: last.total,
    median_ms: fmt(last.median),
    p99_ms: fmt(last.p99),
    max_ms: fmt(last.max),
  });
}
console.log(
  `${database.kind}, ${REQUESTS} sequential requests per row, window ${WINDOW.start_date}..${WINDOW.end_date}`,
);
console.table(rows);
await app.close();
await database.close();
