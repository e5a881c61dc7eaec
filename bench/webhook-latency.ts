// `node bench/webhook-latency.ts [--seconds 60] [--rate 1000]`: issue 28's delivery target. The real
// server (`node src/main.ts`, a child process) on a fresh PostgreSQL database with 100 restaurants,
// one webhook endpoint each on a receiver here on 127.0.0.1; product edits at `--rate` a minute
// spread over the restaurants. For each edit: from its answer (the commit is before it) and from
// its request to the receiver's 2xx, p50/p99; also the edits' own latency, and the feed's first page
// (100 events) against the NF-e list (100 notes) of one restaurant, in turns, in the same run.
// Prints Markdown.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { recordEvents } from '../src/modules/events/outbox.ts';
import { holdRunLock } from './bench-database.ts';
import { benchEndpoint, issueCredentials } from './credentials.ts';
import { serverEnv } from './server-env.ts';
import { launchServer } from './server-launcher.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string' }, rate: { type: 'string' } } });
const SECONDS = Number(values.seconds ?? 60);
const PER_MINUTE = Number(values.rate ?? 1000);
const RESTAURANTS = 100;
const PRODUCTS = 5;
const base = process.env.DATABASE_URL?.startsWith('postgres')
  ? process.env.DATABASE_URL
  : 'postgres://postgres@127.0.0.1:5432/test';
const NAME = 'comanda_bench_webhooks';

await holdRunLock(base, NAME);
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query(`drop database if exists ${NAME} with (force)`);
await admin.query(`create database ${NAME}`);
await admin.end();
const url = new URL(base);
url.pathname = `/${NAME}`;
const handle = await openDatabase({ databaseUrl: url.toString() });
await migrate(handle.db);

const received = new Map<string, number>();
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const at = performance.now();
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const name = event.data?.changes?.find((c: { field: string }) => c.field === 'name')?.to;
    if (name) received.set(name, at);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const restaurants: { id: number; products: number[] }[] = [];
for (let r = 0; r < RESTAURANTS; r++) {
  const { id } = await handle.db
    .insertInto('restaurants')
    .values({ name: `Bench ${r}` })
    .returning('id')
    .executeTakeFirstOrThrow();
  const category = await handle.db
    .insertInto('product_categories')
    .values({ restaurant_id: id, brand_id: null, name: 'Pratos', schedules: '[]' } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  const { rows } = await sql<{ id: number }>`
    insert into products (restaurant_id, product_category_id, name, price, position, schedules)
    select ${id}, ${category.id}, 'Prato ' || n, 30, n, '[]' from generate_series(1, ${PRODUCTS}) n
    returning id`.execute(handle.db);
  await benchEndpoint(handle.db, id, hook, ['product.updated']);
  restaurants.push({ id, products: rows.map((row) => row.id) });
}
// The feed-against-NF-e comparison: a full first page of events and 100 notes of one restaurant.
const compared = restaurants[0].id;
await recordEvents(
  handle.db,
  Array.from({ length: 100 }, (_, n) => ({
    restaurant_id: compared,
    type: 'product.updated' as const,
    data: {
      product_id: restaurants[0].products[0],
      operation: 'edit',
      changes: [{ field: 'price', from: '30.00', to: `${n}.00` }],
    },
  })),
);
const brand = await handle.db
  .insertInto('brands')
  .values({
    restaurant_id: compared,
    name: 'Bench',
    fantasy_name: null,
    cnpj: null,
    is_default: true,
    fiscal_token_encrypted: null,
  })
  .returning('id')
  .executeTakeFirstOrThrow();
await sql`
  insert into nfe_received (restaurant_id, brand_id, access_key, issuer_name, issuer_document, total, situation,
    complete, manifestation_type, issued_at)
  select ${compared}, ${brand.id}, lpad(n::text, 44, '3'), 'Distribuidora Sul', '12345678000199', 300,
    'autorizada', true, 'confirmacao', timestamptz '2026-01-10 13:00Z' + n * interval '1 minute'
  from generate_series(1, 100) n`.execute(handle.db);
const credentials = await issueCredentials(
  handle.db,
  restaurants.map((r) => r.id),
);
await handle.close();

const server = await launchServer({
  ...serverEnv({ DATABASE_URL: url.toString() }, 'http://127.0.0.1:9'),
  WEBHOOK_ALLOW_PRIVATE: '1',
});
const sent = new Map<string, { start: number; answered: number }>();
const interval = 60_000 / PER_MINUTE;
const total = Math.round((SECONDS * PER_MINUTE) / 60);
const started = performance.now();
const edits: Promise<void>[] = [];
let failures = 0;
for (let n = 0; n < total; n++) {
  const wait = started + n * interval - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const restaurant = restaurants[n % RESTAURANTS];
  const product = restaurant.products[Math.floor(n / RESTAURANTS) % PRODUCTS];
  const name = `edit ${n}`;
  const start = performance.now();
  edits.push(
    fetch(`${server.url}/v1/products/${product}`, {
      method: 'PUT',
      headers: {
        authorization: credentials.get(restaurant.id)!.authorization,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name }),
    }).then(async (res) => {
      await res.arrayBuffer();
      if (res.status !== 200) failures++;
      else sent.set(name, { start, answered: performance.now() });
    }),
  );
}
await Promise.all(edits);
const deadline = performance.now() + 30_000;
while (received.size < sent.size && performance.now() < deadline)
  await new Promise((r) => setTimeout(r, 100));

// One GET of each in turn, so that a machine whose speed drifts weighs on both alike.
const authorization = credentials.get(compared)!.authorization;
const timeGet = async (path: string) => {
  const start = performance.now();
  const res = await fetch(`${server.url}${path}`, { headers: { authorization } });
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return performance.now() - start;
};
const FEED = '/v1/events?limit=100';
const NFE = '/v1/nfe-received?start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T23:59:59Z';
const feedTimes: number[] = [];
const nfeTimes: number[] = [];
for (let i = 0; i < 350; i++) {
  const feed = await timeGet(FEED);
  const nfe = await timeGet(NFE);
  // The first 50 of each warm the caches and the connections.
  if (i < 50) continue;
  feedTimes.push(feed);
  nfeTimes.push(nfe);
}
await server.stop();
receiver.close();

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
const fromAnswer: number[] = [];
const fromRequest: number[] = [];
const editLatency: number[] = [];
for (const [name, times] of sent) {
  editLatency.push(times.answered - times.start);
  const at = received.get(name);
  if (at === undefined) continue;
  fromAnswer.push(at - times.answered);
  fromRequest.push(at - times.start);
}
const ms = (v: number) => `${v.toFixed(1)} ms`;
const line = (label: string, v: number[]) =>
  `| ${label} | ${ms(quantile(v, 0.5))} | ${ms(quantile(v, 0.99))} |`;
console.log(
  `\n${total} edits in ${SECONDS} s (${PER_MINUTE}/min) over ${RESTAURANTS} restaurants, one endpoint each`,
);
console.log(`edits refused: ${failures}; webhooks received: ${fromAnswer.length} of ${sent.size}\n`);
console.log('| measure | p50 | p99 |\n| --- | --- | --- |');
console.log(line("edit's answer -> receiver (commit is before the answer)", fromAnswer));
console.log(line("edit's request -> receiver", fromRequest));
console.log(line('edit request -> answer', editLatency));
console.log(line('GET /v1/events, first page of 100', feedTimes));
console.log(line('GET /v1/nfe-received, 100 notes', nfeTimes));
console.log(
  `\nfeed / NF-e list p50 ratio: ${(quantile(feedTimes, 0.5) / quantile(nfeTimes, 0.5)).toFixed(2)}` +
    ` (load average ${loadavg()
      .map((v) => v.toFixed(2))
      .join(', ')})`,
);
