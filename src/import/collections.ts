// The collections of the import format, in the order they are written (referenced first).
import { brands } from './brands.ts';
import { cashFlows } from './cash-flows.ts';
import { complementCategories, productCategories, restaurants } from './catalog.ts';
import type { Collection, Rec } from './collection.ts';
import { apiKeys, oauthClients } from './credentials.ts';
import { bankAccounts, costCentres, paymentMethods, suppliers } from './finance.ts';
import type { Issues } from './issues.ts';
import { nfeReceived } from './nfe.ts';
import { products } from './products.ts';
import { isObject, readRecord } from './record.ts';
import type { Parsed } from './references.ts';

const COLLECTIONS: Collection[] = [
  restaurants,
  brands,
  productCategories,
  complementCategories,
  products,
  suppliers,
  bankAccounts,
  paymentMethods,
  costCentres,
  cashFlows,
  nfeReceived,
  apiKeys,
  oauthClients,
];

/** What an import reports: rows written per kind, all keys present. */
export function emptyCounts(): Record<string, number> {
  const names = COLLECTIONS.map((c) => c.name);
  names.splice(names.indexOf('complement_categories') + 1, 0, 'complement_options');
  names.splice(names.indexOf('cash_flows') + 1, 0, 'cash_flow_items');
  return Object.fromEntries(names.map((n) => [n, 0]));
}

/** Checks every record on its own (fields, types, rules within a record). */
export function parseFile(input: unknown, issues: Issues): Parsed {
  if (!isObject(input)) {
    issues.add('(file)', 'must be a JSON object with the collections of the import format');
    return [];
  }
  const known = COLLECTIONS.map((c) => c.name);
  for (const key of Object.keys(input)) {
    if (!known.includes(key)) issues.add(key, `unknown collection (known: ${known.join(', ')})`);
  }
  const parsed: Parsed = [];
  for (const collection of COLLECTIONS) {
    const raw = input[collection.name];
    if (raw === undefined) continue;
    if (!Array.isArray(raw)) {
      issues.add(collection.name, 'must be an array');
      continue;
    }
    const records: Rec[] = [];
    const rejected: Rec[] = [];
    raw.forEach((item, i) => {
      const at = `${collection.name}[${i}]`;
      const row = readRecord(item, at, collection.spec, issues);
      if (!row) {
        if (isObject(item)) rejected.push({ at, row: item });
        return;
      }
      collection.check?.(row, at, issues);
      records.push({ at, row });
    });
    parsed.push({ collection, records, rejected });
  }
  return parsed;
}
