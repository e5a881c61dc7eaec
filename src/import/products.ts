// Products with their fiscal attributes (columns of `products`), add-on links, combo items and
// schedules. A product takes the brand of its category, as a product write does. Only what differs
// from the stored product is written (its row, or each kind of its links as a whole), so a product
// imported again as it is stored moves no catalog_version; what a menu shows of the rest is
// recorded for menu.updated (events.ts).
import { sql } from 'kysely';
import { FCP_PERCENTUAL_PATTERN, FISCAL_COLUMNS, FISCAL_VALUE_MAX } from '../db/fiscal-columns.ts';
import { inRestaurant, name } from './catalog.ts';
import type { Collection, Ref, Row, WriteContext } from './collection.ts';
import { menuChanged } from './events.ts';
import { arrayOf, bool, type Check, characters, id, instant, integer, storable, text } from './fields.ts';
import { FieldProblem } from './issues.ts';
import { money } from './money.ts';
import { readStoredProducts, recordImportHistory, stampInstants } from './product-history.ts';
import { nested, nullable, optional, required } from './record.ts';
import { schedules } from './schedules.ts';
import { deleteWhereIn, differences, insertRows, storedLists, upsertRows } from './write.ts';

const fiscalValue: Check<string> = (value) => {
  if (typeof value !== 'string')
    throw new FieldProblem('must be a string or null (codes keep their leading zeros)');
  if (characters(value, FISCAL_VALUE_MAX) > FISCAL_VALUE_MAX)
    throw new FieldProblem(`must be at most ${FISCAL_VALUE_MAX} characters`);
  return storable(value);
};
const numericText = new RegExp(FCP_PERCENTUAL_PATTERN);
const fcpPercentual: Check<string> = (value) => {
  const text = fiscalValue(value);
  if (!numericText.test(text)) throw new FieldProblem('must be a numeric string, such as "2.5"');
  return text;
};
const NO_FISCAL = Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, null]));
const fiscal = nested(
  Object.fromEntries(
    FISCAL_COLUMNS.map((c) => [c, nullable(c === 'fcp_percentual' ? fcpPercentual : fiscalValue)]),
  ),
);
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
    const products = records.map((r) => r.row);
    const rows = products.map(productRow);
    const ids = rows.map((r) => r.id);
    const before = await readStoredProducts(ctx.tx, ids);
    const stored = new Set(before.map((r) => r.id));
    // A new product differs in everything. The instants are set below, from what changed.
    const storedRows = rows.filter((r) => stored.has(r.id));
    const differing = await differences(ctx, 'products', storedRows, ['created_at', 'updated_at']);
    const relink = await linksToWrite(ctx, products, [...stored]);
    const relinked = new Set(relink.flatMap(({ owners }) => owners.map((owner) => owner.id)));
    const changed = new Set(ids.filter((id) => !stored.has(id) || differing.has(id) || relinked.has(id)));
    stampInstants(before, rows, changed, new Date().toISOString());
    await upsertRows(ctx, 'products', rows, 'id', true);
    await recordImportHistory(ctx.tx, before, rows);
    await writeLinks(ctx, relink);
    await sql`update products p set brand_id = c.brand_id from product_categories c
      where c.id = p.product_category_id and p.id = any(${ids})
      and p.brand_id is distinct from c.brand_id`.execute(ctx.tx);
    // A new product, its add-on groups and its combo items are in both channels' menus.
    // Any other changed column shows in both channels' menus; fiscal_group_id in none.
    for (const { id, restaurant_id } of rows) {
      const columns = differing.get(id) ?? [];
      const whole = !stored.has(id) || relinked.has(id);
      if (whole || columns.some((column) => column !== 'fiscal_group_id')) menuChanged(ctx, restaurant_id);
    }
    return { products: records.length };
  },
};

function productRow(row: Row): Row {
  const { combo, complement_category_ids, fiscal: values, schedules: windows, ...columns } = row;
  return {
    ...columns,
    ...(values ?? NO_FISCAL),
    combo_min_items: combo?.min_items ?? null,
    schedules: windows,
  };
}

/** A product's add-on groups and combo items: link rows whose order (position) the menu reads. */
const LINKS = [
  {
    table: 'product_complement_categories',
    owner: 'product_id',
    item: 'complement_category_id',
    of: (row: Row): number[] => row.complement_category_ids,
  },
  {
    table: 'combo_items',
    owner: 'combo_product_id',
    item: 'item_product_id',
    of: (row: Row): number[] => row.combo?.product_ids ?? [],
  },
];

const sameList = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * For each kind of link, the products whose list in the file is not the stored one, in order
 * (`stored`: the ids of those already stored, the others have none).
 */
async function linksToWrite(ctx: WriteContext, products: Row[], stored: number[]) {
  const result: { link: (typeof LINKS)[number]; owners: Row[] }[] = [];
  for (const link of LINKS) {
    const lists = await storedLists(ctx, link.table, link.owner, link.item, stored);
    result.push({
      link,
      owners: products.filter((row) => !sameList(lists.get(row.id) ?? [], link.of(row))),
    });
  }
  return result;
}

/** Replaces those products' links of that kind with the file's; the others' rows stay as they are. */
async function writeLinks(ctx: WriteContext, relink: Awaited<ReturnType<typeof linksToWrite>>) {
  for (const { link, owners } of relink) {
    await deleteWhereIn(
      ctx,
      link.table,
      link.owner,
      owners.map((row) => row.id),
    );
    const rows = owners.flatMap((row) =>
      link.of(row).map((id, position) => ({
        restaurant_id: row.restaurant_id,
        [link.owner]: row.id,
        [link.item]: id,
        position,
      })),
    );
    await insertRows(ctx, link.table, rows);
  }
}
