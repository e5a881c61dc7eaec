// A restaurant's catalog as the menu needs it, assembled once from the repository rows and
// reused by every read until the catalog version moves. Everything here depends on the data and
// the channel only, never on the instant.
//
// Products are kept pre-rendered as UTF-8 JSON: serialising 2,000 products per request cost
// more than everything else in the request together (docs/readme/menu.md has the numbers).
// A product without schedules (its own or its category's) has the same availability at any
// instant, so it is rendered whole; the others keep a gap for availability.resolved, which
// build-menu.ts resolves per request.
import { FISCAL_COLUMNS, type FiscalValues } from '../../db/fiscal-columns.ts';
import { type AvailabilityInput, resolveAvailability } from './availability.ts';
import { optionPrice, pricingMode, resolveMinimum, resolvePrice } from './price.ts';
import type { CatalogRows, GroupRow, ProductRow } from './repository.ts';
import { resolvedJson } from './resolved-json.ts';
import type { MenuCategoryInput, MenuChannel, MenuResolvedAvailability } from './types.ts';

/** A product on one channel, without its closing '}' (and the optional fiscal before it). */
export type ChannelView =
  | { fixed: MenuResolvedAvailability; body: Buffer }
  | { fixed: null; input: AvailabilityInput; head: Buffer; tail: Buffer };

/** `fiscalClose` ends the product with its fiscal projection: ',"fiscal":{...}}'. */
export type CatalogProduct = {
  row: ProductRow;
  fiscalClose: Buffer;
  views: Record<MenuChannel, ChannelView>;
};

/** `head` opens the category up to its products array: `{"id":1,...,"products":[`. */
export type CatalogCategory = MenuCategoryInput & { head: Buffer; products: CatalogProduct[] };

export type Catalog = { version: number; size: number; categories: CatalogCategory[] };

const CHANNELS: MenuChannel[] = ['in_store', 'delivery'];
const ANY_INSTANT = { weekday: 0, minutes: 0 };

function mapPricing(row: ProductRow, groups: readonly GroupRow[], channel: MenuChannel) {
  const { base, source } = resolvePrice(row, channel);
  return {
    mode: pricingMode(row),
    is_combo: row.is_combo,
    price: row.price,
    price_promotion: row.price_promotion,
    delivery_price: row.delivery_price,
    delivery_price_promotion: row.delivery_price_promotion,
    resolved: { base, source, minimum: resolveMinimum(base, groups, channel) },
  };
}

function mapGroups(groups: readonly GroupRow[], channel: MenuChannel) {
  return groups.map((group) => ({
    id: group.id,
    name: group.name,
    min: group.min,
    max: group.max,
    required: group.min >= 1,
    options: group.options.map((option) => ({
      id: option.id,
      name: option.name,
      price: optionPrice(option, channel),
      available: option.available,
    })),
  }));
}

/** The product members in menu.md order, up to and including `"resolved":`. */
function renderHead(row: ProductRow, groups: readonly GroupRow[], channel: MenuChannel): string {
  const json = JSON.stringify({
    id: row.id,
    product_category_id: row.product_category_id,
    name: row.name,
    description: row.description,
    position: row.position,
    use_weight: row.use_weight,
    has_starting_price: row.has_starting_price,
    charge_service_tax: row.charge_service_tax,
    pricing: mapPricing(row, groups, channel),
    availability: {
      available: row.available,
      available_in_delivery: row.available_in_delivery,
      sold_out: row.sold_off,
    },
  });
  return `${json.slice(0, -2)},"resolved":`; // reopen availability: drop its '}' and the product's
}

function view(
  row: ProductRow,
  category: CatalogCategory,
  groups: GroupRow[],
  comboItems: number,
  channel: MenuChannel,
) {
  const input = { product: { ...row, combo_available_items: comboItems }, category, groups };
  const head = renderHead(row, groups, channel);
  const tail = `},"complement_categories":${JSON.stringify(mapGroups(groups, channel))}`;
  if (row.schedules.length > 0 || category.schedules.length > 0) {
    return { fixed: null, input, head: Buffer.from(head), tail: Buffer.from(tail) };
  }
  // Without schedules nothing depends on the instant, nor on accepts_scheduling (schedulable
  // needs outside_schedule).
  const { resolved } = resolveAvailability(input, channel, ANY_INSTANT, false);
  return {
    fixed: resolved,
    body: Buffer.concat([Buffer.from(head), resolvedJson(resolved), Buffer.from(tail)]),
  };
}

function renderFiscal(row: ProductRow): Buffer {
  const fiscal = {} as FiscalValues;
  for (const column of FISCAL_COLUMNS) fiscal[column] = row[column];
  return Buffer.from(`,"fiscal":${JSON.stringify(fiscal)}}`);
}

function comboCounts(rows: CatalogRows['comboItems']): Map<number, Record<MenuChannel, number>> {
  const counts = new Map<number, Record<MenuChannel, number>>();
  for (const item of rows) {
    let count = counts.get(item.combo_product_id);
    if (!count) {
      count = { in_store: 0, delivery: 0 };
      counts.set(item.combo_product_id, count);
    }
    if (item.available) count.in_store++;
    if (item.available_in_delivery) count.delivery++;
  }
  return counts;
}

function groupsByProduct(rows: CatalogRows): Map<number, GroupRow[]> {
  const groupsById = new Map(rows.groups.map((group) => [group.id, group]));
  const groupsOf = new Map<number, GroupRow[]>();
  for (const link of rows.links) {
    const group = groupsById.get(link.complement_category_id);
    if (!group) continue; // a removed group
    const list = groupsOf.get(link.product_id);
    if (list) list.push(group);
    else groupsOf.set(link.product_id, [group]);
  }
  return groupsOf;
}

export function assembleCatalog(rows: CatalogRows): Catalog {
  const groupsOf = groupsByProduct(rows);
  const combos = comboCounts(rows.comboItems);
  const categories: CatalogCategory[] = rows.categories.map((category) => {
    const { id, name, position, available } = category;
    const head = Buffer.from(
      `${JSON.stringify({ id, name, position, available }).slice(0, -1)},"products":[`,
    );
    return { ...category, head, products: [] };
  });
  const categoryById = new Map(categories.map((category) => [category.id, category]));
  let size = 0;
  for (const row of rows.products) {
    const category = categoryById.get(row.product_category_id);
    if (!category) continue; // packaging, marketplace mirror or removed category
    const groups = groupsOf.get(row.id) ?? [];
    const counts = combos.get(row.id) ?? { in_store: 0, delivery: 0 };
    const views = {} as Record<MenuChannel, ChannelView>;
    for (const channel of CHANNELS) views[channel] = view(row, category, groups, counts[channel], channel);
    category.products.push({ row, fiscalClose: renderFiscal(row), views });
    size++;
  }
  return { version: rows.version, size, categories };
}
