// `node bench/tenants-ab.ts --a <commit> [--b <commit>] [--rounds 3] [--seconds 4] [--rows product:uniform,mix:zipf]
// [--encoding gzip] [--b-env NAME=value,...] [--instances 2]`: two versions of the server side by side on the tenants data (1,000 restaurants,
// tenants-database.ts), PostgreSQL and Redis, every restaurant read once by each, then windows of
// each row (route:spread) that take turns between them (forwards, then backwards). A `poll` row
// revalidates with the tags each version gave in that first read: a 304 answers it, and so does a
// 200 (a schedule boundary passed since), the two counted apart. Without --b,
// B is this checkout as it is, uncommitted changes included; a commit runs from a detached git
// worktree in the temporary directory. Prints requests per second and the server's CPU per request
// of each, B's ratio to A, and each one's peak RSS (VmHWM) after the first reads and at the end:
// how a change of the read path, or a setting, is measured against what it replaces.
// --b-env adds settings to B's environment (cache budgets, say: A and B may be the same code),
// --b-flags Node/V8 flags to B's command line after those of `npm start` (--b-flags=--max-old-space-size=128);
// --instances runs each as that many instances on the same PostgreSQL and Redis (the load's
// connections split between them, their CPU added up).
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { formatLoad } from './machine.ts';
import { serverEnv } from './server-env.ts';
import { commitMain, type LaunchedServer, launchServer } from './server-launcher.ts';
import { prng, tenants } from './tenants-data.ts';
import { tenantsWithCredentials } from './tenants-database.ts';
import {
  conditionOf,
  loadWindows,
  pathOf,
  picker,
  type Route,
  readEach,
  type Spread,
  type Tags,
} from './tenants-load.ts';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'HEAD' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '4' },
    rows: { type: 'string', default: 'product:uniform,product:hot,mix:uniform,cash-flows:uniform' },
    encoding: { type: 'string', default: 'identity' },
    'b-env': { type: 'string', default: '' },
    'b-flags': { type: 'string', default: '' },
    instances: { type: 'string', default: '1' },
  },
});
const seconds = Number(values.seconds);
/**
 * A commit's server. The tenants database is migrated by this checkout: a commit older than one of
 * its migrations would refuse it as missing, so the worktree is given the file (said on the console).
 */
function mainOf(commit: string): string {
  const { main, dir } = commitMain(commit, 'comanda-ab');
  const migrations = new URL('../src/db/migrations/', import.meta.url);
  for (const file of readdirSync(migrations).filter((f) => f.endsWith('.ts'))) {
    const there = join(dir, 'src/db/migrations', file);
    if (existsSync(there)) continue;
    copyFileSync(new URL(file, migrations), there);
    console.log(`${commit}: given migration ${file}, which the tenants database has`);
  }
  return main;
}
const { url, all, authorization, hot } = await tenantsWithCredentials(tenants().length, console.log);
const env = {
  ...serverEnv({ DATABASE_URL: url }, 'http://127.0.0.1:9'),
  REDIS_URL: 'redis://127.0.0.1:6379',
};
const bEnv = Object.fromEntries(
  values['b-env']
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=', 2)),
);
/** `--instances` servers of one version: what a load window is sent to and whose CPU it counts. */
async function arm(name: string, armEnv: Record<string, string>, main?: string, flags: string[] = []) {
  const servers: LaunchedServer[] = [];
  for (let i = 0; i < Number(values.instances); i++)
    servers.push(await launchServer(armEnv, undefined, main, flags));
  return {
    name,
    servers,
    tags: new Map() as Tags,
    urls: servers.map((server) => server.url),
    cpuMs: () => servers.reduce((sum, server) => sum + server.cpuMs(), 0),
    peak: () => Math.max(...servers.map((server) => server.memory().peak)),
  };
}
const arms = [
  await arm(`A (${values.a})`, env, mainOf(values.a)),
  await arm(
    `B (${values.b ?? 'this checkout'})`,
    { ...env, ...bEnv },
    values.b && mainOf(values.b),
    values['b-flags'].split(',').filter(Boolean),
  ),
];
await Promise.all(arms.flatMap((a) => a.urls.map((url) => readEach(url, all, authorization, a.tags))));
console.log(
  `peak RSS after reading every restaurant once: ${arms.map((a) => `${a.name} ${a.peak().toFixed(0)} MB`).join(', ')}`,
);

const rows = values.rows.split(',').map((row) => row.split(':') as [Route, Spread]);
const totals = arms.map(() => rows.map(() => ({ requests: 0, cpuMs: 0 })));
console.log(`load average ${formatLoad()} at the start`);
for (let round = 0; round < Number(values.rounds); round++)
  for (const [r, [route, spread]] of rows.entries()) {
    const order = round % 2 ? [1, 0] : [0, 1];
    for (const a of order) {
      const { urls, name, cpuMs: cpuNow, tags } = arms[a];
      const pick = picker(spread, all, hot);
      const random = prng(5);
      const next = () => {
        const tenant = pick();
        const path = pathOf(route, tenant, random);
        return {
          path,
          headers: {
            authorization: authorization(tenant),
            'accept-encoding': values.encoding,
            ...conditionOf(route, tags, tenant, path),
          },
        };
      };
      const ok = (status: number) => status === 200 || (route === 'poll' && status === 304);
      await loadWindows(urls, next, 32, 1, ok);
      const cpuBefore = cpuNow();
      const result = await loadWindows(urls, next, 32, seconds, ok);
      const cpuMs = cpuNow() - cpuBefore;
      totals[a][r].requests += result.requests;
      totals[a][r].cpuMs += cpuMs;
      console.log(
        `round ${round + 1} ${route} ${spread} ${name}: ${Math.round(result.rps)} req/s, p99 ${result.p99.toFixed(1)} ms, ` +
          `${Math.round((cpuMs / result.requests) * 1000)} µs CPU per request, ${result.failures} failures` +
          (route === 'poll' ? ` (${result.statuses[304] ?? 0} 304, ${result.statuses[200] ?? 0} 200)` : ''),
      );
    }
  }

console.log(
  `\n| row | ${arms[0].name} req/s | ${arms[1].name} req/s | B/A | A µs CPU per request | B | B/A |`,
);
console.log('| --- | --: | --: | --: | --: | --: | --: |');
for (const [r, [route, spread]] of rows.entries()) {
  const [a, b] = [totals[0][r], totals[1][r]];
  const time = seconds * Number(values.rounds);
  const [cpuA, cpuB] = [(a.cpuMs / a.requests) * 1000, (b.cpuMs / b.requests) * 1000];
  console.log(
    `| ${route} ${spread} | ${(a.requests / time).toFixed(0)} | ${(b.requests / time).toFixed(0)} | ` +
      `${(b.requests / a.requests).toFixed(2)} | ${cpuA.toFixed(0)} | ${cpuB.toFixed(0)} | ${(cpuB / cpuA).toFixed(2)} |`,
  );
}
console.log(`peak RSS ${arms.map((a) => `${a.name} ${a.peak().toFixed(0)} MB`).join(', ')}`);
console.log(`load average ${formatLoad()} at the end`);
for (const server of arms.flatMap((a) => a.servers)) await server.stop();
