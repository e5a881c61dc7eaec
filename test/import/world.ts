// A small valid import file for the importer's tests, and helpers to assert that a rejected
// file names the problem and wrote nothing.
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { ImportError, importData } from '../../src/import/import.ts';

export const FISCAL_KEY = 'test-fiscal-token-key-of-at-least-32-chars';

type File = Record<string, any[]>;

export function world(): File {
  return {
    restaurants: [
      { id: 1, name: 'Cantina Bella', timezone: 'America/Sao_Paulo', accepts_scheduling: true },
      { id: 2, name: 'Sabor do Norte', timezone: 'America/Manaus' },
    ],
    brands: [
      {
        id: 10,
        restaurant_id: 1,
        name: 'Bella',
        cnpj: '01234567000189',
        is_default: true,
        fiscal_token: 'tok-bella',
      },
      { id: 20, restaurant_id: 2, name: 'Norte', is_default: true, fiscal_token: null },
    ],
    product_categories: [
      {
        id: 100,
        restaurant_id: 1,
        brand_id: 10,
        name: 'Pizzas',
        schedules: [{ weekday: 5, start: '18:00', end: '23:30' }],
      },
      { id: 200, restaurant_id: 2, brand_id: 20, name: 'Peixes' },
    ],
    complement_categories: [
      {
        id: 300,
        restaurant_id: 1,
        name: 'Borda',
        min: 0,
        max: 1,
        options: [{ id: 3001, name: 'Catupiry', price: 5 }],
      },
      {
        id: 301,
        restaurant_id: 2,
        name: 'Molhos',
        min: 0,
        max: 2,
        options: [{ id: 3011, name: 'Tucupi', price: 0 }],
      },
    ],
    products: [
      {
        id: 1000,
        restaurant_id: 1,
        product_category_id: 100,
        name: 'Margherita',
        price: 42.9,
        delivery_price: '45.90',
        complement_category_ids: [300],
        fiscal: { ncm: '02013000', cst: '00', icms_origem: '0', fcp_percentual: '2' },
      },
      { id: 1001, restaurant_id: 1, product_category_id: 100, name: 'Calabresa', price: 44.9 },
      {
        id: 1002,
        restaurant_id: 1,
        product_category_id: 100,
        name: 'Combo',
        price: 50,
        is_combo: true,
        combo: { min_items: 2, product_ids: [1000, 1001] },
      },
      {
        id: 2000,
        restaurant_id: 2,
        product_category_id: 200,
        name: 'Tambaqui',
        price: 89.9,
        use_weight: true,
      },
    ],
    suppliers: [
      { id: 50, restaurant_id: 1, name: 'Distribuidora Sul', document: '12345678000199' },
      { id: 51, restaurant_id: 2, name: 'Pescados Rio Negro' },
    ],
    bank_accounts: [{ id: 60, restaurant_id: 1, name: 'Conta principal' }],
    payment_methods: [{ id: 70, restaurant_id: 1, name: 'PIX' }],
    cost_centres: [
      { id: 80, restaurant_id: 1, name: 'Insumos' },
      { id: 81, restaurant_id: 2, name: 'Insumos' },
    ],
    cash_flows: [
      {
        id: 5000,
        restaurant_id: 1,
        entry_type: 'invoice',
        description: 'NF 123',
        value: '300.00',
        due_date: '2026-03-10',
        competence_date: '2026-02-28',
        paid: true,
        paid_at: '2026-03-10T15:00:00-03:00',
        is_earning: false,
        provider_id: 50,
        bank_account_id: 60,
        payment_method_id: 70,
        items: [
          {
            id: 5001,
            entry_type: 'invoice_item',
            description: 'Farinha',
            value: '200.00',
            category_subcategory_id: 80,
          },
          { id: 5002, description: 'Tomate', value: 100, category_subcategory_id: 80 },
        ],
      },
      {
        id: 5003,
        restaurant_id: 1,
        entry_type: 'standalone',
        value: 1500,
        due_date: '2026-03-11',
        is_earning: true,
      },
      {
        id: 5004,
        restaurant_id: 2,
        entry_type: 'title',
        value: '10.00',
        due_date: '2026-03-12',
        is_earning: true,
        items: [
          { id: 5005, entry_type: 'title_entry', value: '4.00', due_date: '2026-03-20' },
          { id: 5006, value: '6.00' },
        ],
      },
    ],
    nfe_received: [
      {
        id: 7000,
        restaurant_id: 1,
        brand_id: 10,
        access_key: '35260112345678000199550010000012341000012345',
        issuer_name: 'Distribuidora Sul',
        issuer_document: '12345678000199',
        total: '300.00',
        situation: 'autorizada',
        manifestation_type: 'ciencia',
        provider_id: 50,
        issued_at: '2026-01-10T13:00:00Z',
      },
    ],
    api_keys: [
      {
        id: 1,
        key: 'ck_test_world_key_one',
        name: 'POS',
        restaurant_ids: [1],
        scopes: ['products:read', 'menu:read'],
      },
    ],
    oauth_clients: [
      {
        client_id: 'pos-app',
        client_secret: 'pos-app-secret',
        name: 'POS app',
        restaurant_ids: [1, 2],
        scopes: ['menu:read'],
        grant_types: ['client_credentials'],
      },
    ],
  };
}

/** The tables the importer writes (the data model of import-format.md). */
export const IMPORTED_TABLES = [
  'restaurants',
  'brands',
  'product_categories',
  'complement_categories',
  'complement_options',
  'products',
  'product_complement_categories',
  'combo_items',
  'suppliers',
  'bank_accounts',
  'payment_methods',
  'cost_centres',
  'cash_flows',
  'nfe_received',
  'api_keys',
  'api_key_restaurants',
  'oauth_clients',
  'oauth_client_restaurants',
];

/** The tables whose writes move restaurants.catalog_version (migration 0003). */
export const CATALOG_TABLES = IMPORTED_TABLES.filter((table) => /^(product|complement|combo)/.test(table));

/** Every row of every table the importer writes, as text: equal snapshots mean nothing was written. */
export async function snapshot(db: Db, tables = IMPORTED_TABLES): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of tables) {
    const { rows } = await sql<{
      rows: string | null;
    }>`select string_agg(t::text, '|' order by t::text) as rows
      from ${sql.table(table)} t`.execute(db);
    result[table] = rows[0].rows ?? '';
  }
  return result;
}

export const load = (db: Db, file: unknown) => importData(db, file, { fiscalTokenKey: FISCAL_KEY });

/** Imports `file` expecting a rejection naming `issue`, and checks that nothing was written. */
export async function assertRejected(db: Db, file: unknown, issue: string): Promise<void> {
  const before = await snapshot(db);
  const err = await load(db, file).then(
    () => assert.fail(`the file was accepted; expected: ${issue}`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ImportError, `not an ImportError: ${err}`);
  assert.ok(err.issues.includes(issue), `expected "${issue}" among:\n${err.issues.join('\n')}`);
  assert.match(err.message, /nothing was written/);
  assert.deepEqual(await snapshot(db), before, 'a rejected file wrote something');
}

/** The world with one change; its restaurant 1 is renamed too, so any write would show. */
export function worldWith(change: (file: File) => void): File {
  const file = world();
  file.restaurants[0].name = 'Renamed by a rejected file';
  change(file);
  return file;
}
