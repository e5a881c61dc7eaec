// `npm run bench -- tenants`: many restaurants on one deployment (issue 25). Copies the seeded
// tenants database (tenants-database.ts), gives each restaurant a credential, then for the first
// 100, 300 and 1,000 restaurants starts `node src/main.ts` (PostgreSQL and Redis), reads every
// restaurant once, and measures each route against one hot restaurant, a uniform spread and a
// Zipf spread in the same run; then two instances, the first read of a menu, revalidation polling
// and compression. Prints the table and writes bench/results/latest-tenants.md.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { describeMachine, formatLoad } from './machine.ts';
import { serverEnv } from './server-env.ts';
import { type LaunchedServer, launchServer } from './server-launcher.ts';
import { closest, prng, type Tenant } from './tenants-data.ts';
import { tenantsWithCredentials } from './tenants-database.ts';
import { loadWindows, pathOf, picker, ROUTES, readEach, type Spread } from './tenants-load.ts';
import { type Measured, renderTenants } from './tenants-report.ts';
import { firstReads, pollingAndCompression } from './tenants-single.ts';

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

const {
  url: databaseUrl,
  seededMs,
  all,
  credentials,
  authorization,
  hot,
} = await tenantsWithCredentials(Math.max(...sizes), log);
const env = {
  ...serverEnv({ DATABASE_URL: databaseUrl }, 'http://127.0.0.1:9'),
  REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
};
log(
  `${all.length} restaurants, ${credentials.size} credentials; hot restaurant ${hot.id} (${hot.products} products)`,
);

/** The mean catalog size of 100,000 picks of each spread over `list`. */
function meanProducts(list: Tenant[]): Record<Spread, number> {
  const mean = (spread: Spread) => {
    const pick = picker(spread, list, hot);
    let sum = 0;
    for (let i = 0; i < 100_000; i++) sum += pick().products;
    return sum / 100_000;
  };
  return { hot: mean('hot'), uniform: mean('uniform'), zipf: mean('zipf') };
}

async function measure(
  urls: string[],
  route: (typeof ROUTES)[number],
  spread: Spread,
  list: Tenant[],
  encoding?: string,
) {
  const pick = picker(spread, list, hot);
  const random = prng(5);
  const accept: Record<string, string> = encoding ? { 'accept-encoding': encoding } : {};
  const next = () => {
    const tenant = pick();
    return {
      path: pathOf(route, tenant, random),
      headers: { authorization: authorization(tenant), ...accept },
    };
  };
  await loadWindows(urls, next, connections, warmup);
  return loadWindows(urls, next, connections, seconds);
}

const measured: Measured = {
  sizes: [],
  twoInstances: [],
  firstRead: [],
  polling: [],
  compression: [],
  spreadGzip: [],
};

/** The uniform spread over `list`, each route without and then with Accept-Encoding: gzip. */
async function spreadGzip(server: LaunchedServer, list: Tenant[]) {
  for (const route of ROUTES.filter((r) => r !== 'product')) {
    const identity = await measure([server.url], route, 'uniform', list);
    const gzip = await measure([server.url], route, 'uniform', list, 'gzip');
    measured.spreadGzip.push({ route, identity, gzip });
    log(
      `n=${list.length} ${route}, uniform: identity ${Math.round(identity.rps)}, gzip ${Math.round(gzip.rps)} req/s`,
    );
  }
}

async function sizeRows(server: LaunchedServer, n: number) {
  const list = all.slice(0, n);
  const warmed = performance.now();
  await readEach(server.url, list, authorization);
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
  measured.sizes.push({
    n,
    rows,
    peakRss: server.memory().peak,
    load: formatLoad(),
    productsPerRead: meanProducts(list),
  });
}

for (const n of sizes) {
  const server = await launchServer(env);
  try {
    await sizeRows(server, n);
    if (n === Math.max(...sizes)) {
      await spreadGzip(server, all.slice(0, n));
      const window = { connections, seconds, warmup };
      measured.firstRead = await firstReads(
        server.url,
        databaseUrl,
        [closest(all, 200), closest(all, 2_000)],
        authorization,
      );
      Object.assign(measured, await pollingAndCompression(server.url, authorization(hot), window));
    }
  } finally {
    await server.stop();
  }
}

// Two instances on the same PostgreSQL and Redis, every restaurant, the mixed load.
const pair = [await launchServer(env), await launchServer(env)];
try {
  await Promise.all(pair.map((s) => readEach(s.url, all, authorization)));
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
