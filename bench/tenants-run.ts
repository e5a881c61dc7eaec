// `npm run bench -- tenants`: many restaurants on one deployment (issue 25). Copies the seeded
// tenants database (tenants-database.ts), gives each restaurant a credential, then for the first
// 100, 300 and 1,000 restaurants starts `node src/main.ts` (PostgreSQL and Redis), reads every
// restaurant once, and measures each route against one hot restaurant, a uniform spread and a
// Zipf spread in the same run; then two instances, the first read of a menu, revalidation polling
// and compression. Prints the table and writes bench/results/latest-tenants.md.
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { issueCredentials } from './credentials.ts';
import { percentile } from './load.ts';
import { describeMachine, formatLoad } from './machine.ts';
import { BENCH_SECRETS, serverEnv } from './server-env.ts';
import { type LaunchedServer, launchServer } from './server-launcher.ts';
import { prng, type Tenant, tenants } from './tenants-data.ts';
import { tenantsDatabase } from './tenants-database.ts';
import { loadWindow, loadWindows, pathOf, picker, ROUTES, type Spread } from './tenants-load.ts';
import { type Measured, renderTenants } from './tenants-report.ts';

const { values } = parseArgs({
  args: process.argv.slice(3),
  options: {
    seconds: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '1' },
    connections: { type: 'string', default: '32' },
    sizes: { type: 'string', default: '100,300,1000' },
  },
});
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const connections = Number(values.connections);
const sizes = values.sizes.split(',').map(Number);
const started = new Date();
const log = (line: string) =>
  console.log(`${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(4)} s  ${line}`);
const loadStart = formatLoad();
log(`load average ${loadStart}`);

const { url: databaseUrl, seededMs } = await tenantsDatabase(BENCH_SECRETS.fiscalTokenKey, log);
const all = tenants().slice(0, Math.max(...sizes));
const handle = await openDatabase({ databaseUrl });
const credentials = await issueCredentials(
  handle.db,
  all.map((t) => t.id),
);
await handle.close();
const authorization = (tenant: Tenant) => credentials.get(tenant.id)!.authorization;
const closest = (size: number) =>
  all.reduce((best, t) => (Math.abs(t.products - size) < Math.abs(best.products - size) ? t : best));
const hot = closest(150);
const env = {
  ...serverEnv({ DATABASE_URL: databaseUrl }, 'http://127.0.0.1:9'),
  REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
};
log(
  `${all.length} restaurants, ${credentials.size} credentials; hot restaurant ${hot.id} (${hot.products} products)`,
);

/** Every restaurant's menu (both channels), listing, first cash-flow page and NF-e list, once. */
async function readEach(url: string, list: Tenant[]): Promise<void> {
  const random = prng(3);
  const queue = list.flatMap((t) =>
    ['menu', 'listing', 'cash-flows', 'nfe'].flatMap((route) =>
      (route === 'menu' ? ['in_store', 'delivery'] : ['']).map((channel) => ({
        tenant: t,
        path: channel ? `/v1/menu?channel=${channel}` : pathOf(route as 'listing', t, random),
      })),
    ),
  );
  const worker = async () => {
    for (let job = queue.pop(); job; job = queue.pop()) {
      const res = await fetch(`${url}${job.path}`, { headers: { authorization: authorization(job.tenant) } });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${job.path}: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

async function measure(urls: string[], route: (typeof ROUTES)[number], spread: Spread, list: Tenant[]) {
  const pick = picker(spread, list, hot);
  const random = prng(5);
  const next = () => {
    const tenant = pick();
    return { path: pathOf(route, tenant, random), headers: { authorization: authorization(tenant) } };
  };
  await loadWindows(urls, next, connections, warmup);
  return loadWindows(urls, next, connections, seconds);
}

const measured: Measured = { sizes: [], twoInstances: [], firstRead: [], polling: [], compression: [] };

async function sizeRows(server: LaunchedServer, n: number) {
  const list = all.slice(0, n);
  const warmed = performance.now();
  await readEach(server.url, list);
  log(`n=${n}: read every restaurant once in ${((performance.now() - warmed) / 1000).toFixed(1)} s`);
  const rows = [];
  for (const route of ROUTES) {
    const bySpread = {} as Record<Spread, Awaited<ReturnType<typeof measure>>>;
    for (const spread of ['hot', 'uniform', 'zipf'] as Spread[])
      bySpread[spread] = await measure([server.url], route, spread, list);
    const rss = server.memory().rss;
    rows.push({ route, ...bySpread, rss });
    log(
      `n=${n} ${route}: hot ${Math.round(bySpread.hot.rps)}, uniform ${Math.round(bySpread.uniform.rps)}, ` +
        `zipf ${Math.round(bySpread.zipf.rps)} req/s; RSS ${Math.round(rss)} MB`,
    );
  }
  measured.sizes.push({ n, rows, peakRss: server.memory().peak, load: formatLoad() });
}

/** The first read of a menu after its catalog version moved: single client, timed at the client. */
async function firstReads(server: LaunchedServer) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  for (const size of [200, 2_000]) {
    const tenant = closest(size);
    const time = async (bump: boolean) => {
      if (bump)
        await client.query('update restaurants set catalog_version = catalog_version + 1 where id = $1', [
          tenant.id,
        ]);
      const at = performance.now();
      const res = await fetch(`${server.url}/v1/menu?channel=in_store`, {
        headers: { authorization: authorization(tenant) },
      });
      await res.arrayBuffer();
      return performance.now() - at;
    };
    const cold: number[] = [];
    const warm: number[] = [];
    for (let i = 0; i < 40; i++) {
      cold.push(await time(true));
      warm.push(await time(false));
    }
    cold.sort((a, b) => a - b);
    warm.sort((a, b) => a - b);
    measured.firstRead.push({
      products: tenant.products,
      p50: percentile(cold, 0.5),
      p99: percentile(cold, 0.99),
      warmP50: percentile(warm, 0.5),
    });
  }
  await client.end();
}

/** The bytes of an answer as sent (fetch would decode them). */
function rawBytes(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      res.on('end', () => resolve(bytes));
    }).on('error', reject);
  });
}

async function pollingAndCompression(server: LaunchedServer) {
  const headers = { authorization: authorization(hot) };
  const variants = ['channel=in_store', 'channel=delivery', 'channel=in_store&only_available=true'];
  const tags = await Promise.all(
    variants.map(async (query) => {
      const res = await fetch(`${server.url}/v1/menu?${query}`, { headers });
      await res.arrayBuffer();
      return {
        path: `/v1/menu?${query}`,
        headers: { ...headers, 'if-none-match': res.headers.get('etag')! },
      };
    }),
  );
  const random = prng(9);
  const plain = () => ({ path: tags[Math.floor(random() * tags.length)].path, headers });
  const conditional = () => tags[Math.floor(random() * tags.length)];
  await loadWindow(server.url, plain, connections, warmup);
  const menu = await loadWindow(server.url, plain, connections, seconds);
  const revalidated = await loadWindow(server.url, conditional, connections, seconds, (s) => s === 304);
  measured.polling.push({ menu, revalidated });
  for (const encoding of ['', 'gzip', 'br']) {
    const next = () => ({
      path: '/v1/menu?channel=in_store',
      headers: encoding ? { ...headers, 'accept-encoding': encoding } : headers,
    });
    const bytes = await rawBytes(`${server.url}${next().path}`, next().headers);
    await loadWindow(server.url, next, connections, warmup);
    measured.compression.push({
      encoding: encoding || 'none',
      bytes,
      result: await loadWindow(server.url, next, connections, seconds),
    });
  }
}

for (const n of sizes) {
  const server = await launchServer(env);
  try {
    await sizeRows(server, n);
    if (n === Math.max(...sizes)) {
      await firstReads(server);
      await pollingAndCompression(server);
    }
  } finally {
    await server.stop();
  }
}

// Two instances on the same PostgreSQL and Redis, every restaurant, the mixed load.
const pair = [await launchServer(env), await launchServer(env)];
try {
  await Promise.all(pair.map((s) => readEach(s.url, all)));
  for (const spread of ['hot', 'uniform', 'zipf'] as Spread[]) {
    const result = await measure(
      pair.map((s) => s.url),
      'mix',
      spread,
      all,
    );
    measured.twoInstances.push({ spread, result, rss: Math.max(...pair.map((s) => s.memory().peak)) });
    log(`two instances, mix, ${spread}: ${Math.round(result.rps)} req/s`);
  }
} finally {
  await Promise.all(pair.map((s) => s.stop()));
}

const markdown = renderTenants(measured, {
  started,
  command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
  machine: describeMachine('PostgreSQL'),
  loadStart,
  loadEnd: formatLoad(),
  windows: `${seconds} s windows at ${connections} connections, each after ${warmup} s of the same load`,
  seeding:
    seededMs === undefined
      ? 'copied from the seeded template database'
      : `seeded in ${(seededMs / 1000).toFixed(1)} s`,
});
console.log(`\n${markdown}`);
writeFileSync(new URL('./results/latest-tenants.md', import.meta.url), markdown);
log('wrote bench/results/latest-tenants.md');
