// PUT /v1/products/bulk under load: one restaurant with 2,000 products, batches of 100 products
// sent by autocannon for a fixed window against the app on a real port. Every request changes
// the price of its 100 products (the price depends on the request number), with no
// expected_updated_at, so each one is a real write: lock, update, history.
// The service runs in a child process so the load generator never shares its event loop
// (PGlite executes on the server's own thread).
//
//   node bench/bulk-edit.ts [--seconds 20] [--connections 10]              (in-memory PGlite)
//   node bench/bulk-edit.ts --pg   (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test;
//                                   a database comanda_bench_bulk_edit is created and dropped)
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
// @ts-expect-error autocannon ships no type declarations
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { type DatabaseHandle, type Db, isPostgresUrl, openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { issueAccessToken } from '../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../src/modules/auth/api-keys.ts';

const { values: args } = parseArgs({
  options: {
    pg: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '10' },
    serve: { type: 'boolean', default: false },
  },
});
const PRODUCTS = 2000;
const BATCH = 100;
const BENCH_DB = 'comanda_bench_bulk_edit';
const serverUrl =
  args.pg || isPostgresUrl(process.env.DATABASE_URL)
    ? (process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test')
    : undefined;
type Ready = { base: string; token: string; ids: number[]; kind: string };

async function adminQuery(query: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(query);
  await admin.end();
}

async function openBenchDatabase(): Promise<DatabaseHandle> {
  if (!serverUrl) return openDatabase({ databaseUrl: 'memory://' });
  await adminQuery(`drop database if exists ${BENCH_DB} with (force)`);
  await adminQuery(`create database ${BENCH_DB}`);
  const url = new URL(serverUrl);
  url.pathname = `/${BENCH_DB}`;
  return openDatabase({ databaseUrl: url.toString() });
}

async function seed(db: Db): Promise<number[]> {
  await sql`insert into restaurants (id, name) values (1, 'Bench restaurant')`.execute(db);
  await sql`insert into brands (id, restaurant_id, name, is_default) values (1, 1, 'Bench', true)`.execute(
    db,
  );
  await sql`insert into product_categories (id, restaurant_id, brand_id, name, position)
    select g, 1, 1, 'Category ' || g, g from generate_series(1, ${PRODUCTS / BATCH}) g`.execute(db);
  const { rows } = await sql<{
    id: number;
  }>`insert into products (restaurant_id, product_category_id, brand_id,
      position, name, price, delivery_price, ncm, cfop, csosn, fcp_percentual)
    select 1, 1 + (g - 1) / ${BATCH}, 1, g, 'Product ' || g, 10 + g % 90, 12 + g % 90, '02109900', '5102', '0102', '2'
    from generate_series(1, ${PRODUCTS}) g
    returning id`.execute(db);
  await sql`analyze`.execute(db);
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** The child: database, seed, app on a real port; answers "count" and "stop" over IPC. */
async function serve(): Promise<void> {
  const database = await openBenchDatabase();
  await migrate(database.db);
  const ids = await seed(database.db);
  const config = {
    ...parseConfig({ LOG_LEVEL: 'warn', DATABASE_URL: 'memory://' }),
    rateLimitPerMinute: 1e9,
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
  const scopes = ['products:read', 'products:write'];
  const key = await storeApiKey(database.db, { name: 'bench', restaurantIds: [1], scopes });
  const token = await issueAccessToken(database.db, { apiKeyId: key.id, restaurantIds: [1], scopes }, 3600);
  process.send!({ base, token, ids, kind: database.kind } satisfies Ready);
  process.on('message', async (message) => {
    if (message === 'count') {
      const row = await database.db
        .selectFrom('product_changes')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      process.send!({ history: Number(row.n) });
    } else if (message === 'stop') {
      await app.close();
      await database.close();
      if (serverUrl) await adminQuery(`drop database if exists ${BENCH_DB} with (force)`);
      process.exit(0);
    }
  });
}

type Histogram = { p50: number; p99: number; average: number };
type Result = { latency: Histogram; requests: Histogram; non2xx: number; errors: number; timeouts: number };

async function load(ready: Ready, seconds: number, next: () => string): Promise<Result> {
  return autocannon({
    url: ready.base,
    connections: Number(args.connections),
    duration: seconds,
    requests: [
      {
        method: 'PUT',
        path: '/v1/products/bulk',
        headers: { authorization: `Bearer ${ready.token}`, 'content-type': 'application/json' },
        setupRequest: (request: { body?: string }) => ({ ...request, body: next() }),
      },
    ],
  });
}

async function main(): Promise<void> {
  const child = fork(import.meta.filename, [...process.argv.slice(2), '--serve']);
  const [ready] = (await once(child, 'message')) as [Ready];
  let sent = 0;
  const next = () => {
    const n = sent++;
    const batch = n % (PRODUCTS / BATCH);
    // request n and n + 20 hit the same batch with different prices: every write is a real change
    const price = (100 + (n % 1_000_000)) / 100;
    return JSON.stringify(ready.ids.slice(batch * BATCH, (batch + 1) * BATCH).map((id) => ({ id, price })));
  };
  await load(ready, 3, next); // warm-up: JIT, plans, pool
  const result = await load(ready, Number(args.seconds), next);
  child.send('count');
  const [{ history }] = (await once(child, 'message')) as [{ history: number }];
  child.send('stop');
  await once(child, 'exit');
  console.log(
    `${ready.kind}: PUT /v1/products/bulk, ${BATCH} products per request, ${PRODUCTS} products, ` +
      `${args.connections} connections, ${args.seconds} s`,
  );
  console.table({
    median_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    'requests/s': result.requests.average,
    'products/s': Math.round(result.requests.average * BATCH),
    non_2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    history_rows: history,
  });
}

await (args.serve ? serve() : main());
