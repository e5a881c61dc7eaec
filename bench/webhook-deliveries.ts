// `node bench/webhook-deliveries.ts [--events 5000] [--rounds 4]`: what one delivery costs the
// instance that makes it. A fresh PostgreSQL database with one restaurant and one endpoint on a
// receiver in a process of its own (webhook-receiver.ts); each round writes --events
// product.updated events (100 per transaction, as a bulk edit does), then runs the webhook
// worker's turns here until nothing is left, and prints this process's CPU time (and the wall
// time) per delivery: the hand-out, the claim, the signature, the POST and the records. The first
// rounds include the warm-up; compare the last ones.
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { recordEvents } from '../src/modules/events/outbox.ts';
import { createWebhookWorker } from '../src/modules/webhooks/worker.ts';
import { holdRunLock } from './bench-database.ts';
import { startHelper } from './child-process.ts';
import { benchEndpoint } from './credentials.ts';
import { BENCH_SECRETS } from './server-env.ts';

const { values } = parseArgs({ options: { events: { type: 'string' }, rounds: { type: 'string' } } });
const EVENTS = Number(values.events ?? 5000);
const ROUNDS = Number(values.rounds ?? 4);
const RESTAURANT = 13;
const base = process.env.DATABASE_URL?.startsWith('postgres')
  ? process.env.DATABASE_URL
  : 'postgres://postgres@127.0.0.1:5432/test';
const url = new URL(base);
url.pathname = '/comanda_bench_deliveries';

await holdRunLock(base, 'comanda_bench_deliveries');
const admin = new pg.Client({ connectionString: base });
await admin.connect();
await admin.query('drop database if exists comanda_bench_deliveries with (force)');
await admin.query('create database comanda_bench_deliveries');
await admin.end();
const handle = await openDatabase({ databaseUrl: url.toString() });
const { db } = handle;
await migrate(db);
await sql`insert into restaurants (id, name, accepts_scheduling) values (${RESTAURANT}, 'Hooks', true)`.execute(
  db,
);
const receiver = await startHelper(new URL('./webhook-receiver.ts', import.meta.url));
await benchEndpoint(db, RESTAURANT, receiver.url, ['product.updated']);
const worker = createWebhookWorker({
  db,
  secretKey: BENCH_SECRETS.fiscalTokenKey,
  allowPrivate: true,
  log: (err) => console.error(err),
});
const change = (product: number) => ({
  restaurant_id: RESTAURANT,
  type: 'product.updated' as const,
  data: { product_id: product, operation: 'bulk', changes: [{ field: 'price', from: '10.50', to: '11.25' }] },
});

console.log(`| round | deliveries | CPU per delivery | wall per delivery |\n| --: | --: | --: | --: |`);
for (let round = 1; round <= ROUNDS; round++) {
  for (let i = 0; i < EVENTS; i += 100)
    await recordEvents(
      db,
      Array.from({ length: Math.min(100, EVENTS - i) }, (_, k) => change(i + k)),
    );
  const cpu = process.cpuUsage();
  const started = performance.now();
  let sent = 0;
  for (;;) {
    const claimed = await worker.runOnce();
    if (!claimed) break;
    sent += claimed;
  }
  const used = process.cpuUsage(cpu);
  const perDelivery = (microseconds: number) => `${(microseconds / sent).toFixed(0)} µs`;
  console.log(
    `| ${round} | ${sent} | ${perDelivery(used.user + used.system)} | ${perDelivery((performance.now() - started) * 1000)} |`,
  );
}
await worker.stop();
await receiver.stop();
await handle.close();
