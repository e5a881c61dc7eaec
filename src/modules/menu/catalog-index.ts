// The repository rows indexed the way assembling a catalog reads them (catalog.ts).
import type { CatalogRows, GroupRow, ProductRow } from './repository.ts';
import type { MenuChannel } from './types.ts';

/** Per combo, how many of its items can be chosen on the channel. */
export function comboCounts(rows: CatalogRows['comboItems'], channel: MenuChannel): Map<number, number> {
  const counts = new Map<number, number>();
  for (const item of rows) {
    const available = channel === 'delivery' ? item.available_in_delivery : item.available;
    counts.set(item.combo_product_id, (counts.get(item.combo_product_id) ?? 0) + (available ? 1 : 0));
  }
  return counts;
}

/** Per product, its groups in link order; links to removed groups are skipped. */
export function groupsByProduct(rows: CatalogRows): Map<number, GroupRow[]> {
  const groupsById = new Map(rows.groups.map((group) => [group.id, group]));
  const groupsOf = new Map<number, GroupRow[]>();
  for (const link of rows.links) {
    const group = groupsById.get(link.complement_category_id);
    if (!group) continue;
    const list = groupsOf.get(link.product_id);
    if (list) list.push(group);
    else groupsOf.set(link.product_id, [group]);
  }
  return groupsOf;
}

const menuOrder = (a: ProductRow, b: ProductRow) => a.position - b.position || a.id - b.id;

/** Listed products by category, in menu order; packaging, mirrors and removed categories have none. */
export function productsByCategory(rows: CatalogRows): Map<number, ProductRow[]> {
  const byCategory = new Map<number, ProductRow[]>(rows.categories.map((category) => [category.id, []]));
  for (const row of rows.products) byCategory.get(row.product_category_id)?.push(row);
  for (const list of byCategory.values()) list.sort(menuOrder);
  return byCategory;
}
