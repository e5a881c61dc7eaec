// `node bench/menu-render.ts`: the menu of a restaurant of 150, 823 and 2,000 products of the
// tenants data (tenants-database.ts), in-process, three ways: a read of the catalog kept rendered
// (planMenu and its slices, src/modules/menu/), the plain way (the menu computed and written with
// JSON.stringify per read: the tests' reference-menu.ts, which menu-bytes.test.ts holds the served
// bytes to), and a read of a catalog assembled for it (a read that misses the cache). Median time
// of each, in turns, with the same rows.
import { openDatabase } from '../src/db/database.ts';
import { planMenu } from '../src/modules/menu/build-menu.ts';
import { assembleCatalog, type Catalog } from '../src/modules/menu/catalog.ts';
import { menuTail } from '../src/modules/menu/menu-body.ts';
import { loadCatalogRows } from '../src/modules/menu/repository.ts';
import { localClock } from '../src/modules/menu/schedule.ts';
import { referenceMenu } from '../test/modules/menu/reference-menu.ts';
import { BENCH_SECRETS } from './server-env.ts';
import { closest, tenants } from './tenants-data.ts';
import { tenantsDatabase } from './tenants-database.ts';

const { url } = await tenantsDatabase(BENCH_SECRETS.fiscalTokenKey, console.log);
const handle = await openDatabase({ databaseUrl: url });
const all = tenants();
const at = new Date('2026-03-04T15:00:00.000Z');
const query = {
  restaurantId: 7,
  timezone: 'America/Sao_Paulo',
  acceptsScheduling: false,
  at,
  onlyAvailable: false,
  includeFiscal: false,
  search: '',
  categoryId: undefined,
  channel: 'delivery' as const,
};
const clock = localClock(at, query.timezone);
const served = (catalog: Catalog) => {
  const plan = planMenu(catalog, { request: { ...query, needle: '' }, clock, acceptsScheduling: false });
  return Buffer.concat([plan.top, menuTail(plan)]);
};
for (const size of [150, 823, 2000]) {
  const t = closest(all, size);
  const rows = await loadCatalogRows(handle.db, t.id);
  const catalog = assembleCatalog(rows, 'delivery');
  const plain = () => Buffer.from(referenceMenu(rows, query));
  if (!served(catalog).equals(plain())) throw new Error('bytes differ');
  const arms: Record<string, () => unknown> = {
    'kept catalog, a read': () => served(catalog),
    'plain, a read': plain,
    'catalog assembled and read': () => served(assembleCatalog(rows, 'delivery')),
  };
  const times = Object.fromEntries(Object.keys(arms).map((name) => [name, [] as number[]]));
  const n = Math.max(5, Math.round(5_000 / t.products));
  for (let round = 0; round < 10; round++)
    for (const [name, fn] of Object.entries(arms)) {
      const started = performance.now();
      for (let i = 0; i < n; i++) fn();
      times[name].push((performance.now() - started) / n);
    }
  const med = (xs: number[]) => xs.sort((x, y) => x - y)[xs.length >> 1];
  const each = Object.entries(times).map(([name, ms]) => `${name} ${med(ms).toFixed(3)} ms`);
  console.log(`${t.products} products, ${served(catalog).length} bytes: ${each.join('; ')}`);
}
await handle.close();
