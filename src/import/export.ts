// `comanda export --restaurant N`: one restaurant's data as an import file (docs/import-format.md),
// so that importing it into an empty database gives the same answers on every route. Brands'
// fiscal tokens are left out (null) unless `includeSecrets`, then written in plain text as the
// format takes them. API keys and OAuth client secrets are stored only as hashes: never exported.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { FISCAL_COLUMNS } from '../db/fiscal-columns.ts';
import { decryptSecret } from '../lib/encryption.ts';

type Row = Record<string, any>;

type ExportOptions = { includeSecrets?: boolean; fiscalTokenKey?: string };

/** Instants as ISO 8601 with `Z`; every other value as stored. */
function plain(row: Row): Row {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
  );
}

const rows = async (db: Db, table: string, restaurantId: number, order = 'id') =>
  (
    await sql<Row>`select * from ${sql.table(table)} where restaurant_id = ${restaurantId}
      order by ${sql.ref(order)}`.execute(db)
  ).rows.map(plain);

const omit = (row: Row, ...names: string[]) =>
  Object.fromEntries(Object.entries(row).filter(([k]) => !names.includes(k)));

export class ExportError extends Error {}

export async function exportRestaurant(db: Db, restaurantId: number, options: ExportOptions = {}) {
  // One snapshot: every read sees the same committed state.
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (tx) => {
      const restaurant = await tx
        .selectFrom('restaurants')
        .select(['id', 'name', 'timezone', 'accepts_scheduling'])
        .where('id', '=', restaurantId)
        .executeTakeFirst();
      if (!restaurant) throw new ExportError(`restaurant ${restaurantId} does not exist`);
      const brands = (await rows(tx, 'brands', restaurantId)).map(({ fiscal_token_encrypted, ...brand }) => ({
        ...brand,
        fiscal_token:
          options.includeSecrets && fiscal_token_encrypted
            ? decryptSecret(fiscal_token_encrypted, options.fiscalTokenKey ?? '')
            : null,
      }));
      const addOnOptions = await rows(tx, 'complement_options', restaurantId);
      const complement_categories = (await rows(tx, 'complement_categories', restaurantId)).map((group) => ({
        ...group,
        options: addOnOptions
          .filter((o) => o.complement_category_id === group.id)
          .sort((a, b) => a.position - b.position || a.id - b.id)
          .map((o) => omit(o, 'restaurant_id', 'complement_category_id')),
      }));
      return {
        restaurants: [restaurant],
        brands,
        product_categories: await rows(tx, 'product_categories', restaurantId),
        complement_categories,
        products: await products(tx, restaurantId),
        suppliers: await rows(tx, 'suppliers', restaurantId),
        bank_accounts: await rows(tx, 'bank_accounts', restaurantId),
        payment_methods: await rows(tx, 'payment_methods', restaurantId),
        cost_centres: await rows(tx, 'cost_centres', restaurantId),
        cash_flows: await cashFlows(tx, restaurantId),
        nfe_received: await rows(tx, 'nfe_received', restaurantId),
      };
    });
}

async function products(db: Db, restaurantId: number) {
  const links = await rows(db, 'product_complement_categories', restaurantId, 'position');
  const combo = await rows(db, 'combo_items', restaurantId, 'position');
  const groupsOf = new Map<number, Row[]>();
  for (const link of links) groupsOf.set(link.product_id, [...(groupsOf.get(link.product_id) ?? []), link]);
  return (await rows(db, 'products', restaurantId)).map((p) => {
    const fiscal = Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, p[c]]));
    const items = combo.filter((c) => c.combo_product_id === p.id).map((c) => c.item_product_id);
    return {
      ...omit(p, 'brand_id', 'combo_min_items', 'cost', ...FISCAL_COLUMNS),
      combo:
        p.is_combo && p.combo_min_items !== null
          ? { min_items: p.combo_min_items, product_ids: items }
          : null,
      complement_category_ids: (groupsOf.get(p.id) ?? [])
        .sort((a, b) => a.position - b.position)
        .map((l) => l.complement_category_id),
      fiscal: Object.values(fiscal).some((v) => v !== null) ? fiscal : null,
    };
  });
}

async function cashFlows(db: Db, restaurantId: number) {
  const all = await rows(db, 'cash_flows', restaurantId);
  const children = new Map<number, Row[]>();
  for (const row of all)
    if (row.parent_id !== null) children.set(row.parent_id, [...(children.get(row.parent_id) ?? []), row]);
  const fields = (row: Row) => omit(row, 'parent_id', 'effective_competence_date', 'created_at');
  return all
    .filter((row) => row.parent_id === null)
    .map((row) => {
      const items = children.get(row.id)?.map((item) => omit(fields(item), 'restaurant_id'));
      return { ...fields(row), ...(items ? { items } : {}) };
    });
}
