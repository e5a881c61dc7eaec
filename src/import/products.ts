// Products with their fiscal attributes (columns of `products`), add-on links, combo items and
// schedules. A product takes the brand of its category, as a product write does.
import { sql } from 'kysely';
import { FISCAL_COLUMNS } from '../db/fiscal-columns.ts';
import { inRestaurant, name } from './catalog.ts';
import type { Collection, Rec, Ref, Row } from './collection.ts';
import { arrayOf, bool, type Check, id, instant, integer, storable, text } from './fields.ts';
import { FieldProblem } from './issues.ts';
import { money } from './money.ts';
import { keepVersionsForward, readStoredProducts, recordImportHistory } from './product-history.ts';
import { nested, nullable, optional, required } from './record.ts';
import { schedules } from './schedules.ts';
import { deleteWhereIn, insertRows, upsertRows } from './write.ts';

const fiscalValue: Check<string> = (value) => {
  if (typeof value !== 'string')
    throw new FieldProblem('must be a string or null (codes keep their leading zeros)');
  return storable(value);
};
const NO_FISCAL = Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, null]));
const fiscal = nested(Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, nullable(fiscalValue)])));
const price = nullable(money({ min: 0 }));
const ids = arrayOf(id, { unique: true });

export const products: Collection = {
  name: 'products',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    product_category_id: required(id),
    position: optional(integer(), 0),
    name,
    description: nullable(text({ max: 255 })),
    price: required(money({ min: 0 })),
    price_promotion: price,
    delivery_price: price,
    delivery_price_promotion: price,
    available: optional(bool, true),
    available_in_delivery: optional(bool, true),
    sold_off: optional(bool, false),
    use_weight: optional(bool, false),
    has_starting_price: optional(bool, false),
    charge_service_tax: optional(bool, true),
    is_combo: optional(bool, false),
    combo: nullable(nested({ min_items: required(integer(0, 1000)), product_ids: optional(ids, []) })),
    complement_category_ids: optional(ids, []),
    schedules: optional(schedules, []),
    fiscal: nullable(fiscal, NO_FISCAL),
    fiscal_group_id: nullable(id),
    created_at: optional(instant, null),
    updated_at: optional(instant, null),
    removed_at: nullable(instant),
  },
  ids: (row) => [{ path: '.id', table: 'products', id: row.id }],
  refs: (row) => {
    const refs: Ref[] = [
      ...inRestaurant(row),
      { path: '.product_category_id', table: 'product_categories', id: row.product_category_id },
    ];
    row.complement_category_ids.forEach((groupId: number, i: number) => {
      refs.push({ path: `.complement_category_ids[${i}]`, table: 'complement_categories', id: groupId });
    });
    row.combo?.product_ids.forEach((itemId: number, i: number) => {
      refs.push({ path: `.combo.product_ids[${i}]`, table: 'products', id: itemId });
    });
    return refs;
  },
  check: (row, at, issues) => {
    if (row.combo && !row.is_combo)
      issues.add(`${at}.combo`, 'only a combo (is_combo: true) has combo items');
    const self = row.combo?.product_ids.indexOf(row.id) ?? -1;
    if (self >= 0) issues.add(`${at}.combo.product_ids[${self}]`, 'a combo cannot contain itself');
  },
  size: () => 1,
  write: async (ctx, records) => {
    const now = new Date().toISOString();
    const rows = records.map(({ row }) => productRow(row, now));
    const before = await readStoredProducts(
      ctx.tx,
      rows.map((r) => r.id),
    );
    keepVersionsForward(before, rows);
    await upsertRows(ctx, 'products', rows);
    await recordImportHistory(ctx.tx, before, rows);
    const productIds = records.map((r) => r.row.id);
    await deleteWhereIn(ctx, 'product_complement_categories', 'product_id', productIds);
    await deleteWhereIn(ctx, 'combo_items', 'combo_product_id', productIds);
    const links = linkRows(records);
    await insertRows(ctx, 'product_complement_categories', links.complements);
    await insertRows(ctx, 'combo_items', links.combo);
    await sql`update products p set brand_id = c.brand_id from product_categories c
      where c.id = p.product_category_id and p.id = any(${productIds})`.execute(ctx.tx);
    return { products: records.length };
  },
};

function productRow(row: Row, now: string): Row {
  const { combo, complement_category_ids, fiscal: values, schedules: windows, ...columns } = row;
  return {
    ...columns,
    ...(values ?? NO_FISCAL),
    combo_min_items: combo?.min_items ?? null,
    schedules: windows,
    created_at: row.created_at ?? now,
    updated_at: row.updated_at ?? now,
  };
}

function linkRows(records: Rec[]) {
  const complements = records.flatMap(({ row }) =>
    row.complement_category_ids.map((groupId: number, position: number) => ({
      restaurant_id: row.restaurant_id,
      product_id: row.id,
      complement_category_id: groupId,
      position,
    })),
  );
  const combo = records.flatMap(({ row }) =>
    (row.combo?.product_ids ?? []).map((itemId: number, position: number) => ({
      restaurant_id: row.restaurant_id,
      combo_product_id: row.id,
      item_product_id: itemId,
      position,
    })),
  );
  return { complements, combo };
}
