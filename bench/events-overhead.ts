// `npm run bench:events -- [--seconds 5] [--rounds 4] [--arms before,events] [--only bulk] [--cpu-prof]`:
// issue 28's third target, the edit routes no slower than before events by more than 10% with
// events on. Servers run side by side, each on a fresh PostgreSQL database with the standard
// bench's write catalog (2,000 products, restaurant 13): `before`, the code of commit ee92b4e, the
// last before events (a detached git worktree in $BEFORE_DIR, /tmp/comanda-before-ee92b4e by
// default, made on first use with this checkout's node_modules); `events`, this checkout with one
// webhook endpoint of the restaurant subscribed to product.updated and menu.updated, delivered to
// a receiver in a process of its own (webhook-receiver.ts); and, to tell the costs apart, `quiet`
// (no endpoint), `untriggered` (no endpoint, no events_version trigger) and `unwritten` (no
// endpoint, event rows dropped by a trigger), `other` (the checkout in $OTHER_DIR: a variant under
// study, no endpoint). The standard bench's PUT /v1/products/{id} and
// PUT /v1/products/bulk (100 products) at 32 connections, in windows that take turns (forwards,
// then backwards) so a machine whose speed drifts weighs on all alike; after each window, the
// servers turn idle and every queued delivery is sent before the next one starts, and the server's
// CPU time until then counts for its window. Prints Markdown: requests per second, p50, p99, server
// CPU per request, and the ratios to the first server of --arms.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { holdRunLock } from './bench-database.ts';
import { startHelper } from './child-process.ts';
import { benchEndpoint, issueCredentials } from './credentials.ts';
import { catalogIds, seedCatalog } from './data-catalog.ts';
import { type BenchRequest, summarize, type Throughput, type Window, window } from './load.ts';
import { topFunctions } from './profile-top.ts';
import { json } from './scenario.ts';
import { serverEnv } from './server-env.ts';
import { checkoutMain, type LaunchedServer, launchServer } from './server-launcher.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string' },
    rounds: { type: 'string' },
    'cpu-prof': { type: 'boolean' },
    arms: { type: 'string' },
    only: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds ?? 5);
const ROUNDS = Number(values.rounds ?? 4);
const CONNECTIONS = 32;
const BEFORE_COMMIT = 'ee92b4e';
const RESTAURANT = 13;
const PRODUCTS = 2_000;
const BATCH = 100;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEFORE_DIR = process.env.BEFORE_DIR ?? join(tmpdir(), `comanda-before-${BEFORE_COMMIT}`);
const base = process.env.DATABASE_URL?.startsWith('postgres')
  ? process.env.DATABASE_URL
  : 'postgres://postgres@127.0.0.1:5432/test';

// Its databases (comanda_bench_<arm>) and the worktree of BEFORE_DIR are one run's at a time.
await holdRunLock(base, 'comanda_bench_<arm>');
const BEFORE_MAIN = checkoutMain(BEFORE_COMMIT, BEFORE_DIR);

function databaseUrl(name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  return databaseUrl(name);
}

const receiver = await startHelper(new URL('./webhook-receiver.ts', import.meta.url));
const hook = receiver.url;

type Arm = {
  name: string;
  /** What the table calls it. */
  label: string;
  server: LaunchedServer;
  authorization: string;
  /** Deliveries not yet sent (0 without an endpoint). */
  pending(): Promise<number>;
  close(): Promise<void>;
};

const profileDir = values['cpu-prof'] ? mkdtempSync(join(tmpdir(), 'comanda-events-prof-')) : undefined;

type ArmKind = {
  label: string;
  main: string;
  endpoint: boolean;
  versionTrigger: boolean;
  /** Events built and sent by the server but dropped by the database (a trigger), to tell their rows' cost. */
  dropEvents?: boolean;
};
const CURRENT = join(ROOT, 'src/main.ts');
const KINDS: Record<string, ArmKind> = {
  before: {
    label: `before (${BEFORE_COMMIT})`,
    main: BEFORE_MAIN,
    endpoint: false,
    versionTrigger: false,
  },
  events: { label: 'current, one endpoint', main: CURRENT, endpoint: true, versionTrigger: true },
  quiet: { label: 'current, no endpoint', main: CURRENT, endpoint: false, versionTrigger: true },
  untriggered: {
    label: 'current, no endpoint, no events_version trigger',
    main: CURRENT,
    endpoint: false,
    versionTrigger: false,
  },
  // OTHER_DIR: another checkout (a variant under study), no endpoint.
  other: {
    label: `${process.env.OTHER_DIR ?? 'OTHER_DIR'}, no endpoint`,
    main: join(process.env.OTHER_DIR ?? '.', 'src/main.ts'),
    endpoint: false,
    versionTrigger: true,
  },
  unwritten: {
    label: 'current, no endpoint, event rows dropped by the database',
    main: CURRENT,
    endpoint: false,
    versionTrigger: false,
    dropEvents: true,
  },
};

/** A server on a fresh database (migrated by the server as it starts), then the catalog. */
async function startArm(name: string): Promise<Arm> {
  const { label, main, endpoint, versionTrigger, dropEvents } = KINDS[name];
  const url = await freshDatabase(`comanda_bench_${name}`);
  const server = await launchServer(
    { ...serverEnv({ DATABASE_URL: url }, 'http://127.0.0.1:9'), WEBHOOK_ALLOW_PRIVATE: '1' },
    profileDir && join(profileDir, name),
    main,
  );
  const handle = await openDatabase({ databaseUrl: url });
  const { db } = handle;
  await sql`insert into restaurants (id, name, accepts_scheduling) values (${RESTAURANT}, 'Writes', true)`.execute(
    db,
  );
  await seedCatalog(db, { restaurantId: RESTAURANT, products: PRODUCTS });
  // The cost of migration 0015 alone: the current code without its triggers.
  if (main === CURRENT && !versionTrigger)
    for (const name of ['insert', 'update', 'move', 'delete'])
      await sql`drop trigger ${sql.id(`events_version_${name}`)} on events`.execute(db);
  if (dropEvents) {
    await sql`create function bench_drop_event() returns trigger language plpgsql as $$
      begin return null; end $$`.execute(db);
    await sql`create trigger bench_drop_event before insert on events for each row
      execute function bench_drop_event()`.execute(db);
  }
  await sql`analyze`.execute(db);
  if (endpoint) await benchEndpoint(db, RESTAURANT, hook, ['product.updated', 'menu.updated']);
  const credential = (await issueCredentials(db, [RESTAURANT])).get(RESTAURANT)!;
  const pending = async () => {
    if (!endpoint) return 0;
    // Deliveries not yet sent, and transactions whose events are not yet handed out.
    const { rows } = await sql<{ n: number }>`
      select (select count(*) from webhook_deliveries where status = 'pending')::int
        + (select count(*) from webhook_fanout)::int as n`.execute(db);
    return rows[0].n;
  };
  return {
    name,
    label,
    server,
    authorization: credential.authorization,
    pending,
    close: async () => {
      await server.stop();
      await handle.close();
    },
  };
}

// --arms: which servers take turns (the first is the one the others are compared to).
const names = (values.arms ?? 'before,events').split(',');
for (const name of names)
  if (!KINDS[name]) throw new Error(`--arms: ${name} is none of ${Object.keys(KINDS)}`);
const arms: Arm[] = [];
for (const name of names) arms.push(await startArm(name));
const [reference] = arms;

const firstId = catalogIds(RESTAURANT) + 1;
const price = (n: number) => (100 + (n % 1_000_000)) / 100;
const routes: { label: string; request(arm: Arm): BenchRequest }[] = [
  {
    label: 'PUT /v1/products/{id}',
    request: (arm) =>
      json('PUT', { apiKey: '', authorization: arm.authorization }, (n) => ({
        path: `/v1/products/${firstId + (n % PRODUCTS)}`,
        body: { price: price(n) },
      })),
  },
  {
    label: 'PUT /v1/products/bulk (100 products)',
    // Request n and n + 20 edit the same batch at different prices: every edit is a real write.
    request: (arm) =>
      json('PUT', { apiKey: '', authorization: arm.authorization }, (n) => {
        const batch = firstId + (n % (PRODUCTS / BATCH)) * BATCH;
        return {
          path: '/v1/products/bulk',
          body: Array.from({ length: BATCH }, (_, k) => ({ id: batch + k, price: price(n) })),
        };
      }),
  },
];

/** Until every delivery is sent and every server is quiet: a window starts on an idle machine. */
async function settle(): Promise<number> {
  const started = performance.now();
  const deadline = started + 300_000;
  let cpu = arms.map((arm) => arm.server.cpuMs());
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = arms.map((arm) => arm.server.cpuMs());
    const idle = now.every((ms, i) => ms - cpu[i] <= 20);
    cpu = now;
    if (idle && (await Promise.all(arms.map((arm) => arm.pending()))).every((n) => n === 0)) break;
  }
  return performance.now() - started;
}

type Measured = { arm: Arm; load: Throughput; cpuMs: number; settleMs: number[] };
const results: { label: string; measured: Measured[] }[] = [];
const loads: number[] = [];
for (const route of routes) {
  if (values.only && !route.label.includes(values.only)) continue;
  const measured = arms.map((arm) => ({
    arm,
    request: route.request(arm),
    windows: [] as Window[],
    cpuMs: 0,
    settleMs: [] as number[],
  }));
  for (const m of measured) await window(m.arm.server.url, m.request, CONNECTIONS, 2);
  await settle();
  for (let round = 0; round < ROUNDS; round++) {
    // In turns, forwards then backwards: each server takes the earlier and the later turns alike.
    for (const m of round % 2 === 0 ? measured : [...measured].reverse()) {
      loads.push(loadavg()[0]);
      const cpuBefore = m.arm.server.cpuMs();
      m.windows.push(await window(m.arm.server.url, m.request, CONNECTIONS, SECONDS));
      // The requests in flight and the deliveries a window leaves are its work too.
      m.settleMs.push(await settle());
      m.cpuMs += m.arm.server.cpuMs() - cpuBefore;
    }
  }
  results.push({
    label: route.label,
    measured: measured.map(({ arm, windows, cpuMs, settleMs }) => ({
      arm,
      load: summarize(windows),
      cpuMs: cpuMs / windows.reduce((sum, w) => sum + w.requests, 0),
      settleMs,
    })),
  });
}
for (const arm of arms) await arm.close();
const received = (await receiver.ask('count')) as number;
await receiver.stop();

const ratio = (a: number, b: number) => (a / b).toFixed(2);
const ms = (v: number) => `${v.toFixed(1)} ms`;
const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
console.log(
  `\n${ROUNDS} windows of ${SECONDS} s per route and server in turns, ${CONNECTIONS} connections; current is ${commit};` +
    ` load average ${Math.min(...loads).toFixed(2)}-${Math.max(...loads).toFixed(2)} at the windows' starts` +
    ` (${loadavg()
      .map((v) => v.toFixed(2))
      .join(', ')} at the end)\n`,
);
console.log(
  `| route | server | req/s | p50 | p99 | failures | server CPU per request | req/s, p50, p99 / ${reference.name} |`,
);
console.log('| --- | --- | --: | --: | --: | --: | --: | --: |');
for (const { label, measured } of results) {
  const base = measured[0].load;
  measured.forEach(({ arm, load, cpuMs }, i) => {
    const compared =
      i === 0
        ? ''
        : `${ratio(load.rps, base.rps)}, ${ratio(load.p50, base.p50)}, ${ratio(load.p99, base.p99)}`;
    console.log(
      `| ${i === 0 ? label : ''} | ${arm.label} | ${load.rps.toFixed(0)} | ${ms(load.p50)} | ${ms(load.p99)} | ${load.failures} | ${cpuMs.toFixed(2)} ms | ${compared} |`,
    );
  });
}
console.log(`\nwebhooks received: ${received}`);
for (const { label, measured } of results)
  for (const { arm, settleMs } of measured)
    if (arm.name === 'events')
      console.log(
        `${label}: after each window of "${arm.label}", its deliveries were all sent within ${settleMs.map((v) => (v / 1000).toFixed(1)).join(', ')} s`,
      );
if (profileDir)
  for (const arm of arms) {
    console.log(`\nTop self-time functions of "${arm.label}" (${join(profileDir, arm.name)}):`);
    console.log(topFunctions(join(profileDir, arm.name)).join('\n'));
  }
