// Where a write route's memory goes under load, in one process: the app (buildApp) on the bench
// database's write catalog, 32 concurrent injected requests for 6 s, the heap's statistics every
// 50 ms (peaks printed), optionally a heap snapshot at 3 s. Run `npm run bench` once first (it seeds
// the data), then:
//   node --expose-gc --max-semi-space-size=4 --heap-growing-percent=50 bench/memory-probe.ts bulk|put [--snapshot]
import v8 from 'node:v8';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { issueCredentials } from './credentials.ts';
import { DATASETS } from './datasets.ts';

const CONNECTIONS = 32;
const SECONDS = 6;
const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
url.pathname = '/comanda_bench';
const kind = process.argv[2] === 'put' ? 'put' : 'bulk';
const restaurantId = DATASETS.writes.restaurantId;

const secrets = { sessionSecret: 's'.repeat(40), fiscalTokenKey: 'f'.repeat(40) };
const config = {
  ...parseConfig({ LOG_LEVEL: 'warn', DATABASE_URL: url.toString(), RATE_LIMIT_PER_MINUTE: '1000000' }),
  restaurantSessionSecret: secrets.sessionSecret,
  fiscalTokenKey: secrets.fiscalTokenKey,
};
const database = await openDatabase({ databaseUrl: url.toString() });
const app = await buildApp({ config, database, db: database.db, secrets });
const { authorization } = (await issueCredentials(database.db, [restaurantId])).get(restaurantId)!;
const first = await database.db
  .selectFrom('products')
  .select('id')
  .where('restaurant_id', '=', restaurantId)
  .orderBy('id')
  .executeTakeFirstOrThrow();

type Peaks = Record<
  'rss' | 'heapUsed' | 'external' | 'old_space' | 'new_space' | 'large_object_space',
  number
>;
const peaks = {} as Peaks;
function sample(): void {
  const memory = process.memoryUsage();
  const spaces = Object.fromEntries(
    v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size]),
  );
  const now: Peaks = {
    rss: memory.rss,
    heapUsed: memory.heapUsed,
    external: memory.external,
    ...spaces,
  } as Peaks;
  for (const key of Object.keys(now) as (keyof Peaks)[])
    peaks[key] = Math.max(peaks[key] ?? 0, now[key] ?? 0);
}
const inMb = (values: Partial<Peaks>) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Math.round((v ?? 0) / 1048576)]));

globalThis.gc?.();
console.log('start (MB)', inMb(process.memoryUsage()));
const timer = setInterval(sample, 50);
if (process.argv.includes('--snapshot'))
  setTimeout(() => console.log('snapshot', v8.writeHeapSnapshot()), 3000);
let sent = 0;
const end = Date.now() + SECONDS * 1000;
const headers = { authorization, 'content-type': 'application/json' };
await Promise.all(
  Array.from({ length: CONNECTIONS }, async () => {
    while (Date.now() < end) {
      const n = sent++;
      const price = (100 + n) / 100;
      const batch = first.id + (n % 20) * 100;
      const res = await app.inject(
        kind === 'bulk'
          ? {
              method: 'PUT',
              url: '/v1/products/bulk',
              headers,
              payload: Array.from({ length: 100 }, (_, k) => ({ id: batch + k, price })),
            }
          : { method: 'PUT', url: `/v1/products/${first.id + (n % 2000)}`, headers, payload: { price } },
      );
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body.slice(0, 200)}`);
    }
  }),
);
clearInterval(timer);
console.log(`${kind}: ${sent} requests in ${SECONDS} s; peaks (MB)`, inMb(peaks));
globalThis.gc?.();
console.log('after a full collection (MB)', inMb(process.memoryUsage()));
await app.close();
await database.close();
