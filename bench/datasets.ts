// The data sets of the benchmark, one restaurant each. Seeding is cached in the bench database:
// a row of bench_datasets holds each set's fingerprint (its generator's source, its parameters and
// the migrations), and a set is seeded again only when that changes. `writes` is seeded on every
// run, so the write scenarios always start from the same rows.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { type CashFlowSet, seedCashFlows } from './data-cash-flows.ts';
import { type CatalogSet, seedCatalog } from './data-catalog.ts';
import { type NfeSet, seedNfe } from './data-nfe.ts';

type Base = { name: string; restaurantId: number; everyRun?: boolean };
export type CatalogDataset = Base & { kind: 'catalog'; set: CatalogSet };
export type Dataset =
  | CatalogDataset
  | (Base & { kind: 'cash-flows'; set: CashFlowSet })
  | (Base & { kind: 'nfe'; set: NfeSet });

const catalog = (name: string, restaurantId: number, products: number, everyRun = false): CatalogDataset => ({
  name,
  restaurantId,
  everyRun,
  kind: 'catalog',
  set: { restaurantId, products },
});
const cash = (
  name: string,
  restaurantId: number,
  entries: number,
  firstDay: string,
  days: number,
): Dataset => ({
  name,
  restaurantId,
  kind: 'cash-flows',
  set: { restaurantId, entries, firstDay, days },
});

export const DATASETS = {
  menu200: catalog('catalog of 200 products', 10, 200),
  menu2k: catalog('catalog of 2,000 products', 11, 2_000),
  menu20k: catalog('catalog of 20,000 products', 12, 20_000),
  writes: catalog('catalog of 2,000 products for writes', 13, 2_000, true),
  cash100k: cash('100,000 cash-flow entries over 3 years', 20, 100_000, '2024-01-01', 1096),
  cash1m: cash('1,000,000 cash-flow entries over 3 years', 21, 1_000_000, '2024-01-01', 1096),
  // In a period of its own (2023), so it does not skew the date statistics of the others' window.
  cashDense: cash('840,000 cash-flow entries in 92 days', 22, 840_000, '2023-01-01', 92),
  nfe: {
    name: '2,000 listed NF-e',
    restaurantId: 30,
    kind: 'nfe',
    set: { restaurantId: 30, listed: 2_000 },
  } as Dataset,
};

const GENERATORS = { catalog: 'data-catalog.ts', 'cash-flows': 'data-cash-flows.ts', nfe: 'data-nfe.ts' };

function fingerprint(dataset: Dataset): string {
  const migrations = readdirSync(new URL('../src/db/migrations/', import.meta.url)).sort();
  return createHash('sha256')
    .update(readFileSync(new URL(GENERATORS[dataset.kind], import.meta.url)))
    .update(JSON.stringify([dataset.set, migrations]))
    .digest('hex')
    .slice(0, 16);
}

/** Child rows first; cash-flow items before their parents. */
const RESTAURANT_TABLES = [
  'product_changes',
  'combo_items',
  'product_complement_categories',
  'products',
  'complement_options',
  'complement_categories',
  'product_categories',
  'cash_flows',
  'suppliers',
  'bank_accounts',
  'payment_methods',
  'cost_centres',
  'nfe_received',
  'brands',
  'restaurants',
];

async function clearRestaurant(db: Db, restaurantId: number): Promise<void> {
  await sql`delete from cash_flows where restaurant_id = ${restaurantId} and parent_id is not null`.execute(
    db,
  );
  for (const table of RESTAURANT_TABLES) {
    const column = table === 'restaurants' ? 'id' : 'restaurant_id';
    await sql`delete from ${sql.table(table)} where ${sql.ref(column)} = ${restaurantId}`.execute(db);
  }
}

const SEQUENCED = [
  'restaurants',
  'brands',
  'product_categories',
  'complement_categories',
  'products',
  'suppliers',
  'bank_accounts',
  'payment_methods',
  'cost_centres',
  'cash_flows',
  'nfe_received',
];

/** Seeds the sets whose fingerprint changed; returns the names seeded and the time it took. */
export async function ensureDatasets(
  db: Db,
  datasets: Dataset[],
  fiscalTokenKey: string,
  log: (line: string) => void,
): Promise<{ seeded: string[]; ms: number }> {
  const started = performance.now();
  await sql`create table if not exists bench_datasets (name text primary key, fingerprint text not null)`.execute(
    db,
  );
  const stored = await sql<{ name: string; fingerprint: string }>`select * from bench_datasets`.execute(db);
  const known = new Map(stored.rows.map((r) => [r.name, r.fingerprint]));
  const seeded: string[] = [];
  for (const dataset of datasets) {
    const print = fingerprint(dataset);
    if (!dataset.everyRun && known.get(dataset.name) === print) continue;
    const at = performance.now();
    await clearRestaurant(db, dataset.restaurantId);
    await sql`delete from bench_datasets where name = ${dataset.name}`.execute(db);
    const r = dataset.restaurantId;
    await sql`insert into restaurants (id, name, accepts_scheduling) values (${r}, ${dataset.name}, true)`.execute(
      db,
    );
    if (dataset.kind === 'catalog') await seedCatalog(db, dataset.set);
    else if (dataset.kind === 'cash-flows') await seedCashFlows(db, dataset.set);
    else await seedNfe(db, dataset.set, fiscalTokenKey);
    await sql`insert into bench_datasets values (${dataset.name}, ${print})`.execute(db);
    seeded.push(dataset.name);
    log(`seeded ${dataset.name} in ${((performance.now() - at) / 1000).toFixed(1)} s`);
  }
  if (seeded.length) {
    for (const table of SEQUENCED) {
      await sql`select setval(pg_get_serial_sequence(${table}, 'id'), coalesce(max(id), 0) + 1, false)
        from ${sql.table(table)}`.execute(db);
    }
    // Index-only scans need the visibility map that only VACUUM sets.
    await sql`vacuum analyze`.execute(db);
  }
  return { seeded, ms: performance.now() - started };
}
