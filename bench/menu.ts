// GET /v1/menu under load: one restaurant of 2,000 products in 80 categories with add-on groups
// (seeded deterministically with bulk inserts), the app on a real port in its own process,
// autocannon at 32 connections for a fixed window per scenario, and in the same run a plain
// node:http server (a third process) answering the same response bytes from memory.
// PostgreSQL from DATABASE_URL (a database `comanda_bench_menu` is created on that server and
// dropped afterwards unless --keep), or in-memory PGlite with --pglite.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/menu.ts [--duration 10]
//   node bench/menu.ts --pglite [--duration 10]
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { type Db, openDatabase } from '../src/db/database.ts';
import { FISCAL_COLUMNS } from '../src/db/fiscal-columns.ts';
import { migrate } from '../src/db/migrate.ts';
import { issueAccessToken } from '../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../src/modules/auth/api-keys.ts';
import { assembleCatalog } from '../src/modules/menu/catalog.ts';
import { loadCatalogRows } from '../src/modules/menu/repository.ts';

const { values: args } = parseArgs({
  options: {
    pglite: { type: 'boolean', default: false },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    role: { type: 'string', default: 'main' },
    'database-url': { type: 'string' },
  },
});

const PRODUCTS = 2000;
const CATEGORIES = 80;
const GROUPS = 60;
const RESTAURANT = 1;

// ---- data: a small LCG, so every run seeds the same menu --------------------------------------
let state = 42;
const random = () => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
};
const money = (min: number, max: number) => (min + random() * (max - min)).toFixed(2);

async function insertChunked(db: Db, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto(table as never)
      .values(rows.slice(i, i + 500) as never)
      .execute();
  }
}

async function seed(db: Db): Promise<void> {
  await db
    .insertInto('restaurants')
    .values({ id: RESTAURANT, name: 'Bench', accepts_scheduling: true })
    .execute();
  const lunch = JSON.stringify([1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '11:00', end: '15:00' })));
  const categories = Array.from({ length: CATEGORIES + 1 }, (_, i) => ({
    id: i + 1,
    restaurant_id: RESTAURANT,
    name: i === CATEGORIES ? 'Embalagens' : `Categoria ${i + 1}`,
    position: i + 1,
    available: i !== 40,
    kind: i === CATEGORIES ? 'packaging' : 'regular',
    schedules: i % 10 === 5 ? lunch : '[]',
  }));
  await insertChunked(db, 'product_categories', categories);
  const groups = Array.from({ length: GROUPS }, (_, g) => ({
    id: g + 1,
    restaurant_id: RESTAURANT,
    name: `Complemento ${g + 1}`,
    min: g % 3 === 0 ? 1 : 0,
    max: 1 + (g % 3),
  }));
  await insertChunked(db, 'complement_categories', groups);
  const options = groups.flatMap((group) =>
    Array.from({ length: 3 + Math.floor(random() * 4) }, (_, k) => ({
      restaurant_id: RESTAURANT,
      complement_category_id: group.id,
      name: `Opção ${k + 1} do ${group.name}`,
      price: money(0, 12),
      delivery_price: random() < 0.3 ? money(0, 14) : null,
      available: random() > 0.1,
      position: k + 1,
    })),
  );
  await insertChunked(db, 'complement_options', options);
  const products = Array.from({ length: PRODUCTS }, (_, i) => ({
    id: i + 1,
    restaurant_id: RESTAURANT,
    product_category_id: 1 + Math.floor(i / (PRODUCTS / CATEGORIES)),
    position: 1 + (i % (PRODUCTS / CATEGORIES)),
    name: `Produto ${i + 1} à moda da casa`,
    description:
      i % 4 === 0 ? null : `Descrição do produto ${i + 1}, com ingredientes selecionados e pão artesanal`,
    price: money(5, 120),
    price_promotion: i % 7 === 0 ? money(4, 100) : null,
    delivery_price: i % 3 === 0 ? money(6, 130) : null,
    delivery_price_promotion: i % 11 === 0 ? money(5, 110) : null,
    available: i % 40 !== 1,
    available_in_delivery: i % 45 !== 2,
    sold_off: i % 50 === 3,
    use_weight: i % 60 === 4,
    has_starting_price: i % 13 === 5,
    is_combo: i % 100 === 6,
    combo_min_items: i % 100 === 6 ? 2 : null,
    schedules: i % 90 === 7 ? JSON.stringify([{ weekday: 5, start: '18:00', end: '23:30' }]) : '[]',
    ...Object.fromEntries(FISCAL_COLUMNS.slice(0, 6).map((column, k) => [column, `0${k}${i % 97}`])),
    created_at: new Date('2026-01-10T12:00:00Z'),
    updated_at: new Date('2026-01-10T12:00:00Z'),
  }));
  products.push(
    ...Array.from({ length: 10 }, (_, k) => ({
      ...products[0],
      id: PRODUCTS + k + 1,
      product_category_id: CATEGORIES + 1,
      name: `Caixa ${k + 1}`,
    })),
  );
  await insertChunked(db, 'products', products);
  const links = products.slice(0, PRODUCTS).flatMap((product, i) =>
    Array.from({ length: i % 4 }, (_, k) => ({
      restaurant_id: RESTAURANT,
      product_id: product.id,
      complement_category_id: 1 + ((i * 7 + k * 13) % GROUPS),
      position: k,
    })),
  );
  await insertChunked(db, 'product_complement_categories', links);
  const combos = products.filter((p) => p.is_combo);
  const items = combos.flatMap((combo) =>
    [1, 2, 3].map((k) => ({
      restaurant_id: RESTAURANT,
      combo_product_id: combo.id,
      item_product_id: combo.id + k,
      position: k,
    })),
  );
  await insertChunked(db, 'combo_items', items);
}

// ---- the app process --------------------------------------------------------------------------
type Ask = { cpu: true } | { writeEveryMs: number };

/** Answers the driver: CPU time used so far (µs), and the writer switch (answering the write count). */
function answer(onWrite?: (everyMs: number) => number): void {
  process.on('message', (message: Ask) => {
    if ('cpu' in message) {
      const { user, system } = process.cpuUsage();
      return process.send!(user + system);
    }
    process.send!(onWrite?.(message.writeEveryMs) ?? 0);
  });
  // Requests autocannon left in flight may still run: exit without closing the pool under them.
  process.once('SIGTERM', () => process.exit(0));
}

async function serveApp(databaseUrl: string): Promise<void> {
  const config = {
    ...parseConfig({ LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl }),
    rateLimitPerMinute: 1_000_000,
  };
  const database = await openDatabase({ databaseUrl });
  await migrate(database.db);
  let started = performance.now();
  await seed(database.db);
  const seedMs = Math.round(performance.now() - started);
  const coldLoads: number[] = [];
  for (let i = 0; i < 11; i++) {
    started = performance.now();
    assembleCatalog(await loadCatalogRows(database.db, RESTAURANT));
    coldLoads.push(performance.now() - started);
  }
  const secrets = {
    sessionSecret: 'bench-session-secret-of-32-characters!!',
    fiscalTokenKey: 'x'.repeat(32),
  };
  const app = await buildApp({ config, database, db: database.db, secrets });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const scopes = ['menu:read'];
  const key = await storeApiKey(database.db, { name: 'bench', restaurantIds: [RESTAURANT], scopes });
  const token = await issueAccessToken(
    database.db,
    { apiKeyId: key.id, restaurantIds: [RESTAURANT], scopes },
    3600,
  );
  let writer: NodeJS.Timeout | undefined;
  let writes = 0;
  answer((everyMs) => {
    clearInterval(writer);
    // What a catalog edit does to the menu: the trigger moves catalog_version.
    if (everyMs > 0) {
      writer = setInterval(async () => {
        await database.db
          .updateTable('products')
          .set({ updated_at: new Date() })
          .where('id', '=', 1)
          .execute();
        writes++;
      }, everyMs);
    }
    return writes;
  });
  process.send!({
    base,
    authorization: `Bearer ${token}`,
    kind: database.kind,
    seedMs,
    coldLoadMs: median(coldLoads).toFixed(1),
  });
}

// ---- the baseline process: the same bytes from memory -----------------------------------------
function serveBaseline(bodies: Record<string, string>): void {
  const buffers = new Map(Object.entries(bodies).map(([path, body]) => [path, Buffer.from(body, 'base64')]));
  const server = createServer((req, res) => {
    const body = buffers.get(req.url ?? '');
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    answer();
    process.send!(`http://127.0.0.1:${address.port}`);
  });
}

// ---- the driver -------------------------------------------------------------------------------
const SCENARIOS = [
  { name: 'in_store', query: 'channel=in_store' },
  { name: 'in_store only_available', query: 'channel=in_store&only_available=true' },
  { name: 'delivery', query: 'channel=delivery' },
  { name: 'delivery only_available', query: 'channel=delivery&only_available=true' },
];
const BENCH_DB = 'comanda_bench_menu';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function admin(base: string, query: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  await client.query(query);
  await client.end();
}

function spawn<T>(role: string, extra: string[] = []) {
  const child = fork(new URL(import.meta.url), ['--role', role, ...extra], { stdio: 'inherit' });
  const ready = once(child, 'message').then(([message]) => message as T);
  const ask = async (message: Ask): Promise<number> => {
    child.send(message);
    const [reply] = await once(child, 'message');
    return reply as number;
  };
  return { child, ready, ask };
}

type Server = { url: string; authorization?: string; ask(message: Ask): Promise<number> };

/** One fixed window of autocannon, with the CPU the server spent per request. */
async function load(server: Server, path: string) {
  const cpuBefore = await server.ask({ cpu: true });
  const result = await autocannon({
    url: `${server.url}${path}`,
    connections: Number(args.connections),
    duration: Number(args.duration),
    requests: [{ headers: server.authorization ? { authorization: server.authorization } : {} }],
  });
  if (result.non2xx || result.errors)
    throw new Error(`${path}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuMs = ((await server.ask({ cpu: true })) - cpuBefore) / 1000 / result.requests.total;
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuMs };
}

type Run = Awaited<ReturnType<typeof load>>;

async function drive(): Promise<void> {
  let databaseUrl = 'memory://';
  const base = process.env.DATABASE_URL;
  if (!args.pglite) {
    if (!base?.startsWith('postgres'))
      throw new Error('set DATABASE_URL to a postgres:// URL, or pass --pglite');
    await admin(base, `drop database if exists ${BENCH_DB} with (force)`);
    await admin(base, `create database ${BENCH_DB}`);
    const url = new URL(base);
    url.pathname = `/${BENCH_DB}`;
    databaseUrl = url.toString();
  }
  type Ready = { base: string; authorization: string; kind: string; seedMs: number; coldLoadMs: string };
  const app = spawn<Ready>('app', ['--database-url', databaseUrl]);
  const ready = await app.ready;
  console.log(`${ready.kind}: seeded ${PRODUCTS} products in ${CATEGORIES} categories in ${ready.seedMs} ms`);
  console.log(
    `cold catalog load (the cache-miss path: one snapshot of 6 queries + assembly): median ${ready.coldLoadMs} ms`,
  );

  const bodies: Record<string, string> = {};
  for (const { query } of SCENARIOS) {
    const res = await fetch(`${ready.base}/v1/menu?${query}`, {
      headers: { authorization: ready.authorization },
    });
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${await res.text()}`);
    bodies[`/v1/menu?${query}`] = Buffer.from(await res.arrayBuffer()).toString('base64');
  }
  const baseline = spawn<string>('baseline');
  baseline.child.send(bodies);
  const comanda: Server = { url: ready.base, authorization: ready.authorization, ask: app.ask };
  const plain: Server = { url: await baseline.ready, ask: baseline.ask };

  const loadBefore = loadavg()[0];
  const rows = [];
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  for (const { name, query } of SCENARIOS) {
    const path = `/v1/menu?${query}`;
    const ours: Run[] = [];
    const theirs: Run[] = [];
    // Alternated rounds, so a change in the machine's load falls on both servers alike.
    for (let round = 0; round < Number(args.rounds); round++) {
      ours.push(await load(comanda, path));
      theirs.push(await load(plain, path));
    }
    const pick = (runs: Run[], key: keyof Run) => median(runs.map((r) => r[key]));
    rows.push({
      scenario: name,
      'body KiB': Math.round(Buffer.byteLength(bodies[path], 'base64') / 1024),
      'req/s': fmt(pick(ours, 'rps')),
      'p50 ms': pick(ours, 'p50'),
      'p99 ms': pick(ours, 'p99'),
      'CPU ms/req': pick(ours, 'cpuMs').toFixed(2),
      'baseline req/s': fmt(pick(theirs, 'rps')),
      'baseline p50': pick(theirs, 'p50'),
      'baseline p99': pick(theirs, 'p99'),
      'baseline CPU ms/req': pick(theirs, 'cpuMs').toFixed(2),
      ratio: `${((pick(ours, 'rps') / pick(theirs, 'rps')) * 100).toFixed(0)}%`,
    });
  }
  console.log(
    `${args.connections} connections, ${args.duration} s windows, median of ${args.rounds} alternated rounds; ` +
      `load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after (${cpus().length} CPUs).`,
  );
  console.log(
    'Cache warm: the first body fetch loaded the catalog and nothing wrote during the runs, so every measured request was a hit (the version query and the access-token lookup were its only queries).',
  );
  console.table(rows);

  await app.ask({ writeEveryMs: 100 });
  const churn = await load(comanda, '/v1/menu?channel=in_store');
  const writes = await app.ask({ writeEveryMs: 0 });
  console.log(
    `in_store with a catalog write every 100 ms (${writes} writes, each one a miss for the next read): ${fmt(churn.rps)} req/s, p50 ${churn.p50} ms, p99 ${churn.p99} ms, CPU ${churn.cpuMs.toFixed(2)} ms/req`,
  );

  app.child.kill('SIGTERM');
  baseline.child.kill('SIGTERM');
  await Promise.all([once(app.child, 'exit'), once(baseline.child, 'exit')]);
  if (base && !args.pglite && !args.keep)
    await admin(base, `drop database if exists ${BENCH_DB} with (force)`);
}

if (args.role === 'app') await serveApp(args['database-url']!);
else if (args.role === 'baseline')
  process.once('message', (bodies) => serveBaseline(bodies as Record<string, string>));
else await drive();
