// A product rendered as menu JSON for one channel, once per catalog version (catalog.ts). The
// instant of a read enters availability only through one yes/no: is it within the product's and
// its category's schedules. So availability.resolved is resolved, by resolveAvailability itself,
// for each outcome a read can meet (OUTCOMES; only the first without any schedule), and the
// product is kept as the text before that value and the text after it; build-menu.ts checks the
// schedules at the requested instant and picks the value.
import { resolveAvailability } from './availability.ts';
import { formatCents, mandatoryCents, optionPrice, pricingMode, resolvePrice, toCents } from './price.ts';
import { resolvedIndex } from './render-parts.ts';
import type { GroupRow, ProductRow } from './repository.ts';
import type { MenuCategoryInput, MenuChannel, MenuSchedule } from './types.ts';

/** Within schedule; outside with scheduled orders accepted; outside without. */
export const OUTCOMES = [
  { open: true, acceptsScheduling: false },
  { open: false, acceptsScheduling: true },
  { open: false, acceptsScheduling: false },
] as const;

type Outcome = 0 | 1 | 2;

export function outcomeOf(open: boolean, acceptsScheduling: boolean): Outcome {
  if (open) return 0;
  return acceptsScheduling ? 1 : 2;
}

/**
 * The product as JSON.stringify writes it, in three parts: `head`, whose last two characters `}}`
 * (closing availability and the product) give way to `,"resolved":` and an availability.resolved
 * value; then `},"complement_categories":[`, its groups separated by commas, and `]}`.
 */
export type ProductJson = {
  head: string;
  /** The product's groups as JSON, each kept once per catalog. */
  groups: Buffer[];
  /** resolvedIndex of availability.resolved, by Outcome. */
  resolved: [number, number, number];
};

const ALWAYS: MenuSchedule[] = [];
const NEVER: MenuSchedule[] = [{ weekday: -1, start: '00:00', end: '00:00' }];
const ANY_INSTANT = { weekday: 0, minutes: 0 };
const json = JSON.stringify;

/**
 * Renders the products of one channel. A group is rendered, and its share of the minimum price
 * computed, once per catalog, not once per product that offers it.
 */
export function productRenderer(channel: MenuChannel) {
  const groupJson = new Map<GroupRow, Buffer>();
  const groupCents = new Map<GroupRow, number>();

  function renderGroup(group: GroupRow): Buffer {
    let bytes = groupJson.get(group);
    if (bytes === undefined) {
      const options = group.options.map((option) => ({
        id: option.id,
        name: option.name,
        price: optionPrice(option, channel),
        available: option.available,
      }));
      const { id, name, min, max } = group;
      bytes = Buffer.from(json({ id, name, min, max, required: min >= 1, options }));
      groupJson.set(group, bytes);
    }
    return bytes;
  }

  /** resolveMinimum, with each group's share kept. */
  function minimum(base: string, groups: readonly GroupRow[]): string {
    let total = toCents(base);
    for (const group of groups) {
      let cents = groupCents.get(group);
      if (cents === undefined) {
        cents = mandatoryCents(group, channel);
        groupCents.set(group, cents);
      }
      total += cents;
    }
    return formatCents(total);
  }

  /** The product without availability.resolved and complement_categories. */
  function head(row: ProductRow, groups: readonly GroupRow[]): string {
    const { base, source } = resolvePrice(row, channel);
    return json({
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
        resolved: { base, source, minimum: minimum(base, groups) },
      },
      availability: {
        available: row.available,
        available_in_delivery: row.available_in_delivery,
        sold_out: row.sold_off,
      },
    });
  }

  function resolved(
    row: ProductRow,
    category: MenuCategoryInput,
    groups: readonly GroupRow[],
    comboItems: number,
  ): ProductJson['resolved'] {
    const product = {
      available: row.available,
      available_in_delivery: row.available_in_delivery,
      sold_off: row.sold_off,
      is_combo: row.is_combo,
      combo_min_items: row.combo_min_items,
      combo_available_items: comboItems,
      schedules: ALWAYS,
    };
    const at = ({ open, acceptsScheduling }: (typeof OUTCOMES)[number]) => {
      const input = {
        product,
        category: { available: category.available, schedules: open ? ALWAYS : NEVER },
        groups,
      };
      return resolvedIndex(resolveAvailability(input, channel, ANY_INSTANT, acceptsScheduling).resolved);
    };
    const within = at(OUTCOMES[0]);
    // Without any schedule every read is within it: the other outcomes never occur.
    if (row.schedules.length === 0 && category.schedules.length === 0) return [within, within, within];
    return [within, at(OUTCOMES[1]), at(OUTCOMES[2])];
  }

  return {
    group: renderGroup,
    product(
      row: ProductRow,
      category: MenuCategoryInput,
      groups: readonly GroupRow[],
      comboItems: number,
    ): ProductJson {
      return {
        head: head(row, groups),
        groups: groups.map(renderGroup),
        resolved: resolved(row, category, groups, comboItems),
      };
    },
  };
}
