// `npm run bench`: every hot route against its ceiling, in one run (issue 12). Seeds (or reuses)
// the bench database, measures each route's database time in-process with EXPLAIN ANALYZE, then
// starts `node src/main.ts`, the node:http baseline and the fiscal simulator as processes of their
// own and runs the scenarios; writes bench/results/<name>.md and .svg. `--help` lists the options.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseMonitor, openBenchDatabase } from './bench-database.ts';
import { startHelper } from './child-process.ts';
import { dropCredentials, issueCredentials } from './credentials.ts';
import { DETAIL_NOTE, FISCAL_TOKEN } from './data-nfe.ts';
import { ensureDatasets } from './datasets.ts';
import { type DbTime, openProbe } from './explain-probe.ts';
import { type BenchRequest, drainOnce, fetchOnce } from './load.ts';
import { cpuClock, describeMachine, formatLoad, stealShare } from './machine.ts';
import { measureScenario, type Row } from './measure-scenario.ts';
import { parseOptions } from './options.ts';
import { topFunctions } from './profile-top.ts';
import { pct, renderMarkdown } from './report-markdown.ts';
import { renderSvg } from './report-svg.ts';
import { datasetsOf, selectScenarios } from './scenarios.ts';
import { BENCH_SECRETS, serverEnv } from './server-env.ts';
import { launchServer } from './server-launcher.ts';
import { checks } from './targets.ts';

// `npm run bench -- tenants [--seconds n --warmup n --connections n --sizes 100,300,1000]`.
if (process.argv[2] === 'tenants') {
  await import('./tenants-run.ts');
  process.exit(0);
}

const options = parseOptions(process.argv.slice(2));
const started = new Date();
const loadStart = formatLoad();
const clockStart = cpuClock();
const clock = () => `${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(4)} s`;
const log = (line: string) => console.log(`${clock()}  ${line}`);

const scenarios = selectScenarios(options);
if (!scenarios.length) throw new Error('no scenario matches --only');
const datasets = datasetsOf(scenarios);
log(`load average ${loadStart}; ${scenarios.length} scenarios on ${datasets.length} data sets`);

const bench = await openBenchDatabase(options.pglite);
await dropCredentials(bench.handle.db);
const seeding = await ensureDatasets(bench.handle.db, datasets, BENCH_SECRETS.fiscalTokenKey, log);
const credentials = await issueCredentials(
  bench.handle.db,
  datasets.map((d) => d.restaurantId),
);
const credential = (restaurantId: number) => credentials.get(restaurantId)!;
const simulator = await startHelper(new URL('./simulator-server.ts', import.meta.url));
const env = serverEnv(bench.serverEnv, simulator.url);

log('database time of each route (EXPLAIN ANALYZE, in-process)');
const probe = await openProbe(bench, env);
const dbTimes = new Map<string, DbTime>();
for (const scenario of scenarios) {
  dbTimes.set(scenario.id, await probe.measure(await scenario.request({ credential, send: probe.send })));
}
await probe.close();
await bench.handle.close();

const profileDir = options.cpuProf ? mkdtempSync(join(tmpdir(), 'comanda-cpu-prof-')) : undefined;
const server = await launchServer(env, profileDir);
const baseline = await startHelper(new URL('./baseline-server.ts', import.meta.url));
const providerRequest = (accessKey = DETAIL_NOTE.access_key): BenchRequest => ({
  method: 'GET',
  path: `/v2/nfes_recebidas/${accessKey}.json?completa=1`,
  headers: { authorization: `Basic ${Buffer.from(`${FISCAL_TOKEN}:`).toString('base64')}` },
});
const ctx = {
  credential,
  send: async (r: BenchRequest) => (await fetchOnce(server.url, r)).body.toString(),
  drain: (r: BenchRequest) => drainOnce(server.url, r),
};
const monitor = await databaseMonitor(bench);
const rows: Row[] = [];
for (const scenario of scenarios) {
  const row = await measureScenario(scenario, dbTimes.get(scenario.id)!, {
    server,
    baseline,
    simulator,
    providerRequest,
    ctx,
    options,
    databaseBusy: monitor.busy,
  });
  rows.push(row);
  const missed = checks(row).filter((c) => !c.pass);
  log(
    `${scenario.id}: ${Math.round(row.server.rps)} req/s` +
      (row.ceiling ? ` (${Math.round((row.server.rps / row.ceiling.rps) * 100)}% of node:http)` : '') +
      `, one client p50 ${row.latency.p50.toFixed(2)} / p99 ${row.latency.p99.toFixed(2)} ms, ` +
      `DB ${row.db.ms.toFixed(2)} ms, RSS ${Math.round(row.rssPeak)} MB` +
      (row.steal.load === undefined ? '' : `, steal ${pct(row.steal.load)} / ${pct(row.steal.oneClient)}`) +
      (missed.length ? `  MISS ${missed.map((c) => c.target).join('; ')}` : ''),
  );
}
const peakRss = server.memory().peak;
await server.stop();
await baseline.stop();
await simulator.stop();
await monitor.close();

const results = new URL('./results/', import.meta.url);
mkdirSync(results, { recursive: true });
const windows =
  `${options.seconds} s windows at ${options.connections} connections after ${options.warmup} s of warm-up, ` +
  `then ${options.latencySeconds} s of one client`;
const markdown = renderMarkdown(rows, {
  started,
  command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
  machine: describeMachine(bench.version),
  loadStart,
  loadEnd: formatLoad(),
  steal: stealShare([[clockStart, cpuClock()]]),
  seeding: seeding.seeded.length
    ? `seeded ${seeding.seeded.join(', ')} in ${(seeding.ms / 1000).toFixed(1)} s; the rest reused from the bench database`
    : `every data set reused from the bench database (checked in ${(seeding.ms / 1000).toFixed(1)} s)`,
  peakRss,
  windows,
  chart: `${options.output}.svg`,
});
writeFileSync(new URL(`${options.output}.md`, results), markdown);
writeFileSync(
  new URL(`${options.output}.svg`, results),
  renderSvg(rows, [`${started.toISOString().slice(0, 16)} UTC, ${describeMachine(bench.version)}`, windows]),
);
log(`wrote bench/results/${options.output}.md and .svg`);
if (profileDir) {
  console.log(`\nTop self-time functions of the server (${profileDir}):`);
  console.log(topFunctions(profileDir).join('\n'));
}
