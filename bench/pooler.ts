// `npm run bench:pooler`: what the named statements give and what PgBouncer in transaction mode
// costs, as ratios measured in one run on PostgreSQL. Four set-ups serve the same data at once:
//   named     one instance, connected directly, hot statements prepared once per connection
//   unnamed   one instance, connected directly, DATABASE_POOLER=transaction (nothing prepared, the
//             statement budget set per transaction)
//   direct×2  two instances, connected directly
//   pooled×2  two instances through one PgBouncer (transaction mode, 20 server connections)
// Windows alternate between the set-ups compared, so drift of the machine falls on both alike.
// Writes bench/results/pooler.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { openBenchDatabase } from './bench-database.ts';
import { startHelper } from './child-process.ts';
import { dropCredentials, issueCredentials } from './credentials.ts';
import { catalogIds } from './data-catalog.ts';
import { DATASETS, ensureDatasets } from './datasets.ts';
import { type BenchRequest, summarize, type Window, window } from './load.ts';
import { formatLoad } from './machine.ts';
import { get, json } from './scenario.ts';
import { BENCH_SECRETS, serverEnv } from './server-env.ts';
import { freePort, type LaunchedServer, launchServer } from './server-launcher.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 32;
const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)}  ${line}`);

const reads = DATASETS.menu2k;
const writes = DATASETS.writes;
const bench = await openBenchDatabase(false);
await dropCredentials(bench.handle.db);
await ensureDatasets(bench.handle.db, [reads, writes], BENCH_SECRETS.fiscalTokenKey, log);
const credentials = await issueCredentials(bench.handle.db, [reads.restaurantId, writes.restaurantId]);
await bench.handle.close();
const directUrl = (bench.serverEnv as { DATABASE_URL: string }).DATABASE_URL;

const bouncerPort = await freePort();
const bouncerDir = execFileSync('bash', ['.ci/pgbouncer'], {
  env: { ...process.env, PGBOUNCER_PORT: String(bouncerPort) },
  encoding: 'utf8',
}).trim();
const pooledUrl = Object.assign(new URL(directUrl), { port: String(bouncerPort) }).toString();

const simulator = await startHelper(new URL('./simulator-server.ts', import.meta.url));
const env = (url: string, pooled: boolean) => ({
  ...serverEnv({ DATABASE_URL: url }, simulator.url),
  ...(pooled ? { DATABASE_POOLER: 'transaction' } : {}),
});
const servers: LaunchedServer[] = [];
const launch = async (url: string, pooled: boolean) => {
  const server = await launchServer(env(url, pooled));
  servers.push(server);
  return server;
};
const setups = {
  named: [await launch(directUrl, false)],
  unnamed: [await launch(directUrl, true)],
  'direct×2': [await launch(directUrl, false), await launch(directUrl, false)],
  'pooled×2': [await launch(pooledUrl, true), await launch(pooledUrl, true)],
};
type Setup = keyof typeof setups;

const firstWrite = catalogIds(writes.restaurantId) + 1;
const ROUTES: { label: string; request: () => BenchRequest }[] = [
  {
    label: 'GET /v1/products/{id}',
    request: () =>
      get(`/v1/products/${catalogIds(reads.restaurantId) + 1000}`, credentials.get(reads.restaurantId)!),
  },
  {
    label: 'GET /v1/menu (2,000 products)',
    request: () => get('/v1/menu', credentials.get(reads.restaurantId)!),
  },
  {
    label: 'PUT /v1/products/{id}',
    request: () =>
      json('PUT', credentials.get(writes.restaurantId)!, (n) => ({
        path: `/v1/products/${firstWrite + (n % 2000)}`,
        body: { price: (100 + (n % 100000)) / 100 },
      })),
  },
];

/** One window over every instance of a set-up at once, the connections split between them. */
async function measure(setup: Setup, request: BenchRequest): Promise<Window> {
  const instances = setups[setup];
  const windows = await Promise.all(
    instances.map((server) => window(server.url, request, CONNECTIONS / instances.length, SECONDS)),
  );
  return {
    requests: windows.reduce((sum, w) => sum + w.requests, 0),
    failures: windows.reduce((sum, w) => sum + w.failures, 0),
    seconds: Math.max(...windows.map((w) => w.seconds)),
    times: windows.flatMap((w) => w.times),
  };
}

const COMPARISONS: [Setup, Setup, string][] = [
  ['unnamed', 'named', 'unnamed / named statements (one instance, direct)'],
  ['pooled×2', 'direct×2', 'through PgBouncer / direct (two instances)'],
];

const lines = [
  '# PgBouncer and named statements',
  '',
  `Run ${new Date().toISOString()}; load average at start ${formatLoad()}; ${SECONDS} s windows, ` +
    `${ROUNDS} rounds alternating the two set-ups of each row, ${CONNECTIONS} connections in all.`,
  'Re-measure: `npm run bench:pooler` (PostgreSQL on DATABASE_URL or 127.0.0.1; PgBouncer from Debian).',
  '',
  '| route | comparison | req/s (first) | req/s (second) | ratio | p99 ms (first / second) | failed |',
  '| --- | --- | --- | --- | --- | --- | --- |',
];
for (const route of ROUTES) {
  for (const [a, b, label] of COMPARISONS) {
    const windows: Record<Setup, Window[]> = { named: [], unnamed: [], 'direct×2': [], 'pooled×2': [] };
    await measure(a, route.request()); // warm-up of both
    await measure(b, route.request());
    for (let round = 0; round < ROUNDS; round++) {
      for (const setup of round % 2 ? [b, a] : [a, b])
        windows[setup].push(await measure(setup, route.request()));
    }
    const first = summarize(windows[a]);
    const second = summarize(windows[b]);
    const row = `| ${route.label} | ${label} | ${first.rps.toFixed(0)} | ${second.rps.toFixed(0)} | ${(first.rps / second.rps).toFixed(2)} | ${first.p99.toFixed(1)} / ${second.p99.toFixed(1)} | ${first.failures + second.failures} |`;
    lines.push(row);
    log(row);
  }
}

for (const server of servers) await server.stop();
await simulator.stop();
try {
  execFileSync('kill', [readFileSync(`${bouncerDir}/pgbouncer.pid`, 'utf8').trim()]);
} catch {}
writeFileSync(new URL('./results/pooler.md', import.meta.url), `${lines.join('\n')}\n`);
log('written to bench/results/pooler.md');
