// `comanda demo` (and `serve` on an empty embedded database): the demo data set, loaded through
// the importer. Everything is seeded except the API keys, which are made fresh on every load
// (never a fixed key in the repository) and returned once to be printed.
import type { Db } from '../db/database.ts';
import { SCOPES } from '../http/principal.ts';
import { importData } from '../import/import.ts';
import { newSecret } from '../lib/secrets.ts';
import { demoCatalog } from './catalog.ts';
import { demoFinance } from './finance.ts';
import { demoNfe } from './nfe.ts';
import { demoPeriod } from './period.ts';
import { seeded } from './random.ts';

/** Provider tokens of the demo brands: only the fiscal simulator (`comanda fiscal-simulator`) knows them. */
export const DEMO_FISCAL_TOKENS: Record<number, string> = {
  10: 'demo-fiscal-token-cantina-bella',
  11: 'demo-fiscal-token-bella-express',
  20: 'demo-fiscal-token-sabor-do-norte',
};

export type DemoKey = {
  id: number;
  name: string;
  api_key: string;
  restaurant_ids: number[];
  scopes: string[];
};

export function demoKeys(): DemoKey[] {
  const key = (id: number, name: string, restaurant_ids: number[]) => ({
    id,
    name,
    api_key: newSecret('ck_test_'),
    restaurant_ids,
    scopes: [...SCOPES],
  });
  return [
    key(1, 'Demo: Cantina Bella', [1]),
    key(2, 'Demo: Sabor do Norte', [2]),
    key(3, 'Demo: partner for both restaurants', [1, 2]),
  ];
}

/** The demo data set in the import format, for the period ending in `today`'s month. */
export function buildDemoData(options: { today?: Date; keys?: DemoKey[] } = {}) {
  const random = seeded(20260110);
  const period = demoPeriod(options.today ?? new Date());
  return {
    ...demoCatalog(DEMO_FISCAL_TOKENS),
    ...demoFinance(random, period),
    nfe_received: demoNfe(random, period),
    api_keys: (options.keys ?? []).map(({ api_key, ...key }) => ({ ...key, key: api_key })),
  };
}

export async function loadDemo(db: Db, options: { fiscalTokenKey: string; today?: Date }) {
  const keys = demoKeys();
  const counts = await importData(db, buildDemoData({ today: options.today, keys }), {
    fiscalTokenKey: options.fiscalTokenKey,
  });
  return { counts, api_keys: keys };
}
