// `node bench/menu-first-read.ts [--a <commit>] [--samples 200] [--cpu-prof] [--explain]`: the first
// read of the 200-product menu (bench data set menu200, PostgreSQL `comanda_bench`) at a catalog
// version nobody read: bump restaurants.catalog_version, then GET /v1/menu?channel=in_store until
// its headers, which the server sends once it has loaded, assembled and planned the menu. With
// --a, the server of that commit runs beside this checkout's and they take turns, sample by sample;
// prints each one's median and p90 and B's ratio to A. --cpu-prof writes this checkout's server
// profile and prints its top self-time functions; --explain prints EXPLAIN ANALYZE of the catalog
// statement and its time at a pg client.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Db } from '../src/db/database.ts';
import { loadCatalogRows } from '../src/modules/menu/repository.ts';
import { openBenchDatabase } from './bench-database.ts';
import { issueCredentials } from './credentials.ts';
import { DATASETS, ensureDatasets } from './datasets.ts';
import { percentile } from './load.ts';
import { topFunctions } from './profile-top.ts';
import { BENCH_SECRETS, serverEnv } from './server-env.ts';
import { commitMain, type LaunchedServer, launchServer } from './server-launcher.ts';

const { values } = parseArgs({
  options: {
    a: { type: 'string' },
    samples: { type: 'string', default: '200' },
    'cpu-prof': { type: 'boolean', default: false },
    explain: { type: 'boolean', default: false },
  },
});
const samples = Number(values.samples);
const dataset = DATASETS.menu200;
const restaurantId = dataset.restaurantId;

const bench = await openBenchDatabase(false);
await ensureDatasets(bench.handle.db, [dataset], BENCH_SECRETS.fiscalTokenKey, console.log);
const { authorization } = (await issueCredentials(bench.handle.db, [restaurantId])).get(restaurantId)!;
await bench.handle.close();
const databaseUrl = (bench.serverEnv as { DATABASE_URL: string }).DATABASE_URL;
const client = new pg.Client({ connectionString: databaseUrl });
await client.connect();

/** Median and p90 of times in ms (sorts them). */
function summary(times: number[]): string {
  const sorted = times.sort((a, b) => a - b);
  return `median ${percentile(sorted, 0.5).toFixed(2)} ms, p90 ${percentile(sorted, 0.9).toFixed(2)} ms`;
}

if (values.explain) {
  // The statement as the menu sends it, caught on its way to the database.
  let caught: CompiledQuery | undefined;
  const catcher = {
    executeQuery: async (query: CompiledQuery) => {
      caught = query;
      throw new Error('caught');
    },
  } as unknown as Db;
  await loadCatalogRows(catcher, restaurantId).catch(() => {});
  const { sql, parameters } = caught!;
  const executed: number[] = [];
  const planned: number[] = [];
  let plan = '';
  for (let i = 0; i < 30; i++) {
    const { rows } = await client.query(`explain (analyze, buffers) ${sql}`, [...parameters]);
    plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    executed.push(Number(/Execution Time: ([\d.]+)/.exec(plan)![1]));
    planned.push(Number(/Planning Time: ([\d.]+)/.exec(plan)![1]));
  }
  console.log(plan);
  console.log(`EXPLAIN ANALYZE: execution ${summary(executed)}; planning ${summary(planned)}`);
  const prepared = { name: 'first_read_catalog', text: sql, values: [...parameters] };
  const client_: number[] = [];
  for (let i = 0; i < 50; i++) {
    const at = performance.now();
    await client.query(prepared);
    client_.push(performance.now() - at);
  }
  console.log(`at a pg client (prepared, rows parsed): ${summary(client_)}`);
}

const env = serverEnv(bench.serverEnv, 'http://127.0.0.1:9');
const profileDir = values['cpu-prof'] ? mkdtempSync(join(tmpdir(), 'comanda-first-prof-')) : undefined;
type Entry = { name: string; server: LaunchedServer; times: number[]; warm: number[] };
const servers: Entry[] = [];
if (values.a)
  servers.push({
    name: `A ${values.a}`,
    server: await launchServer(env, undefined, commitMain(values.a, 'comanda-first').main),
    times: [],
    warm: [],
  });
servers.push({ name: 'B this checkout', server: await launchServer(env, profileDir), times: [], warm: [] });

/** Until the headers; the body is read, not timed. */
async function firstRead(url: string, bump: boolean): Promise<number> {
  if (bump)
    await client.query('update restaurants set catalog_version = catalog_version + 1 where id = $1', [
      restaurantId,
    ]);
  const at = performance.now();
  const res = await fetch(`${url}/v1/menu?channel=in_store`, {
    headers: { authorization, 'accept-encoding': 'identity' },
  });
  const headers = performance.now() - at;
  if (res.status !== 200) throw new Error(`GET /v1/menu: ${res.status}`);
  await res.arrayBuffer();
  return headers;
}

// Warm-up: each server's code paths compiled.
for (let i = 0; i < 30; i++) for (const { server } of servers) await firstRead(server.url, true);
for (let i = 0; i < samples; i++) {
  // Turns, in alternating order.
  const order = i % 2 === 0 ? servers : [...servers].reverse();
  for (const entry of order) {
    entry.times.push(await firstRead(entry.server.url, true));
    // A repeated read of the same version, for comparison.
    entry.warm.push(await firstRead(entry.server.url, false));
  }
}
const medians: number[] = [];
for (const { name, times, warm } of servers) {
  console.log(`${name}: first read until headers ${summary(times)} (${times.length} samples)`);
  medians.push(percentile(times, 0.5));
  console.log(`${name}: repeated read until headers ${summary(warm)}`);
}
if (medians.length === 2) console.log(`B/A median ratio ${(medians[1] / medians[0]).toFixed(3)}`);
for (const { server } of servers) await server.stop();
await client.end();
if (profileDir) {
  console.log(`profile in ${profileDir}`);
  console.log(topFunctions(profileDir, 40).join('\n'));
}
