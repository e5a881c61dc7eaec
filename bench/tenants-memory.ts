// `node bench/tenants-memory.ts [--n 1000] [--seconds 3] [--env NAME=value,...] [--flags=--a,--b]`:
// where a server's resident memory goes on the tenants data. Starts `node src/main.ts` with the
// settings of `npm start` (plus --env / --flags), reads every restaurant once, then runs each
// route uniform and Zipf at 32 connections, sampling every 250 ms VmRSS and VmHWM (/proc) and
// /metrics (V8 heap used/total, external memory, the caches' bytes). Prints the split after the
// warm-up, after each row, and at the sample with the highest RSS.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { serverEnv } from './server-env.ts';
import { launchServer } from './server-launcher.ts';
import { prng } from './tenants-data.ts';
import { tenantsWithCredentials } from './tenants-database.ts';
import { loadWindows, pathOf, picker, ROUTES, readEach, type Spread } from './tenants-load.ts';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1000' },
    seconds: { type: 'string', default: '3' },
    env: { type: 'string', default: '' },
    flags: { type: 'string', default: '' },
    routes: { type: 'string', default: ROUTES.join(',') },
  },
});
const {
  url: databaseUrl,
  all,
  authorization,
  hot,
} = await tenantsWithCredentials(Number(values.n), () => {});
const extra = Object.fromEntries(
  values.env
    .split(',')
    .filter(Boolean)
    .map((pair) => pair.split('=', 2)),
);
const server = await launchServer(
  {
    ...serverEnv({ DATABASE_URL: databaseUrl }, 'http://127.0.0.1:9'),
    REDIS_URL: 'redis://127.0.0.1:6379',
    ...extra,
  },
  undefined,
  undefined,
  values.flags.split(',').filter(Boolean),
);
const MB = 1024 * 1024;
type Sample = Record<string, number>;
function proc(field: string): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
    readFileSync(`/proc/${server.pid}/status`, 'utf8'),
  );
  return m ? Number(m[1]) / 1024 : 0;
}
async function sample(): Promise<Sample> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const s: Sample = { rss: proc('VmRSS'), hwm: proc('VmHWM'), anon: proc('RssAnon'), file: proc('RssFile') };
  for (const line of text.split('\n')) {
    const m =
      /^(nodejs_heap_size_used_bytes|nodejs_heap_size_total_bytes|nodejs_external_memory_bytes|cache_bytes\{cache="([^"]+)"\}|nodejs_heap_space_size_used_bytes\{space="(new|old|large_object|code)"\}) (\S+)/.exec(
        line,
      );
    if (!m) continue;
    const key = m[2] ? `c:${m[2]}` : m[3] ? `sp:${m[3]}` : m[1].replace('nodejs_', '').replace('_bytes', '');
    s[key] = Number(m[4]) / MB;
  }
  return s;
}
const fmt = (s: Sample) =>
  Object.entries(s)
    .map(([k, v]) => `${k}=${v.toFixed(0)}`)
    .join(' ');
let max: Sample = { rss: 0 };
let maxAt = '';
let phase = 'start';
let stop = false;
const sampler = (async () => {
  while (!stop) {
    const s = await sample().catch(() => undefined);
    if (s && s.rss > max.rss) {
      max = s;
      maxAt = phase;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
})();
console.log(`start: ${fmt(await sample())}`);
phase = 'warm-up';
const t0 = performance.now();
await readEach(server.url, all, authorization);
console.log(`warm-up ${((performance.now() - t0) / 1000).toFixed(1)} s: ${fmt(await sample())}`);
console.log(`  max so far (${maxAt}): ${fmt(max)}`);
for (const route of values.routes.split(',') as (typeof ROUTES)[number][])
  for (const spread of ['uniform', 'zipf'] as Spread[]) {
    phase = `${route} ${spread}`;
    const pick = picker(spread, all, hot);
    const random = prng(5);
    const next = () => {
      const tenant = pick();
      return { path: pathOf(route, tenant, random), headers: { authorization: authorization(tenant) } };
    };
    await loadWindows([server.url], next, 32, 1);
    const r = await loadWindows([server.url], next, 32, Number(values.seconds));
    console.log(`${phase}: ${Math.round(r.rps)} req/s; ${fmt(await sample())}`);
  }
stop = true;
await sampler;
console.log(`max RSS sample (during ${maxAt}): ${fmt(max)}`);
const threads = /^Threads:\s+(\d+)/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1];
console.log(`VmHWM ${proc('VmHWM').toFixed(0)} MB, ${threads} threads`);
// The resident mappings by size: glibc's per-thread arenas are 64 MiB regions, V8's pages 256 KiB.
const maps = readFileSync(`/proc/${server.pid}/smaps`, 'utf8').split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
const byKind = new Map<string, number>();
for (const m of maps) {
  const [range, , , , , name = ''] = m.split('\n')[0].split(/\s+/);
  const [lo, hi] = range.split('-').map((h) => Number.parseInt(h, 16));
  const rss = Number(/^Rss:\s+(\d+)/m.exec(m)?.[1] ?? 0) / 1024;
  const size = (hi - lo) / MB;
  const kind =
    name ||
    (size >= 60 && size <= 64.1 ? 'anon 64 MiB (arena?)' : size >= 1 ? 'anon >= 1 MiB' : 'anon < 1 MiB');
  byKind.set(kind, (byKind.get(kind) ?? 0) + rss);
}
console.log(
  [...byKind]
    .filter(([, rss]) => rss >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k}: ${v.toFixed(0)}`)
    .join('; '),
);
await server.stop();
