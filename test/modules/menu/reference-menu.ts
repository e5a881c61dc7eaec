// The menu serialised the straightforward way: plain objects built from the repository rows with
// the rule functions (price, availability, schedule, search), then one JSON.stringify. Nothing
// pre-rendered, nothing cached: the bytes the route must answer.
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import { isListed, resolveAvailability } from '../../../src/modules/menu/availability.ts';
import { optionPrice, pricingMode, resolveMinimum, resolvePrice } from '../../../src/modules/menu/price.ts';
import type { CatalogRows, GroupRow } from '../../../src/modules/menu/repository.ts';
import { localClock } from '../../../src/modules/menu/schedule.ts';
import { normalizeSearch } from '../../../src/modules/menu/search.ts';
import type { MenuChannel } from '../../../src/modules/menu/types.ts';

export type ReferenceQuery = {
  restaurantId: number;
  timezone: string;
  acceptsScheduling: boolean;
  channel: MenuChannel;
  at: Date;
  onlyAvailable: boolean;
  categoryId?: number;
  search?: string;
  includeFiscal: boolean;
};

export function referenceMenu(rows: CatalogRows, query: ReferenceQuery): string {
  const { channel } = query;
  const clock = localClock(query.at, query.timezone);
  const needle = normalizeSearch(query.search ?? '');
  const groupsById = new Map(rows.groups.map((group) => [group.id, group]));
  const groupsByProduct = Map.groupBy(rows.links, (link) => link.product_id);
  const groupsOf = (productId: number): GroupRow[] =>
    (groupsByProduct.get(productId) ?? [])
      .map((link) => groupsById.get(link.complement_category_id))
      .filter((group) => group !== undefined);
  const comboItems = (productId: number) =>
    rows.comboItems.filter(
      (item) =>
        item.combo_product_id === productId &&
        (channel === 'delivery' ? item.available_in_delivery : item.available),
    ).length;
  const categories = rows.categories
    .filter((category) => query.categoryId === undefined || category.id === query.categoryId)
    .map((category) => {
      const products = rows.products
        .filter((row) => row.product_category_id === category.id && matchesSearch(row, needle))
        .flatMap((row) => {
          const groups = groupsOf(row.id);
          const product = { ...row, combo_available_items: comboItems(row.id) };
          const availability = resolveAvailability(
            { product, category, groups },
            channel,
            clock,
            query.acceptsScheduling,
          );
          if (!isListed(availability.resolved, query.onlyAvailable)) return [];
          const { base, source } = resolvePrice(row, channel);
          const values = row.fiscal === null ? [] : JSON.parse(row.fiscal);
          const fiscal = Object.fromEntries(FISCAL_COLUMNS.map((column, k) => [column, values[k]]));
          return [
            {
              id: row.id,
              product_category_id: row.product_category_id,
              name: row.name,
              description: row.description,
              position: row.position,
              use_weight: row.use_weight,
              has_starting_price: row.has_starting_price,
              charge_service_tax: row.charge_service_tax,
              pricing: {
                mode: pricingMode(row),
                is_combo: row.is_combo,
                price: row.price,
                price_promotion: row.price_promotion,
                delivery_price: row.delivery_price,
                delivery_price_promotion: row.delivery_price_promotion,
                resolved: { base, source, minimum: resolveMinimum(base, groups, channel) },
              },
              availability,
              complement_categories: groups.map((group) => ({
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
              })),
              ...(query.includeFiscal ? { fiscal } : {}),
            },
          ];
        });
      const { id, name, position, available } = category;
      return { id, name, position, available, products };
    })
    .filter((category) => !(query.onlyAvailable || needle !== '') || category.products.length > 0);
  return JSON.stringify({
    restaurant_id: query.restaurantId,
    channel,
    evaluated_at: query.at.toISOString(),
    categories,
  });
}

/** Whether the name or the description holds `needle` (normalised); '' matches every product. */
function matchesSearch(product: { name: string; description: string | null }, needle: string): boolean {
  if (needle === '') return true;
  if (normalizeSearch(product.name).includes(needle)) return true;
  return product.description !== null && normalizeSearch(product.description).includes(needle);
}
