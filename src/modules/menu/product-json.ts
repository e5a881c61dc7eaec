// A product rendered as menu JSON, once per catalog version (catalog.ts). The instant of a read
// enters availability only through one yes/no: is it within the product's and its category's
// schedules. So each product is rendered, per channel, for the outcomes a read can meet
// (OUTCOMES; only the first without any schedule), each resolved by resolveAvailability itself;
// build-menu.ts checks the schedules at the requested instant and picks one.
import { FISCAL_COLUMNS, type FiscalValues } from '../../db/fiscal-columns.ts';
import { resolveAvailability } from './availability.ts';
import { optionPrice, pricingMode, resolveMinimum, resolvePrice } from './price.ts';
import { resolvedJson } from './render-parts.ts';
import type { GroupRow, ProductRow } from './repository.ts';
import type { MenuCategoryInput, MenuChannel, MenuResolvedAvailability, MenuSchedule } from './types.ts';

/** Within schedule; outside with scheduled orders accepted; outside without. */
export const OUTCOMES = [
  { open: true, acceptsScheduling: false },
  { open: false, acceptsScheduling: true },
  { open: false, acceptsScheduling: false },
] as const;

export type Outcome = 0 | 1 | 2;

export function outcomeOf(open: boolean, acceptsScheduling: boolean): Outcome {
  if (open) return 0;
  return acceptsScheduling ? 1 : 2;
}

/** The whole product, '}' included, and its availability, for one outcome. */
export type Rendered = { resolved: MenuResolvedAvailability; json: Buffer };

export type CatalogProduct = {
  row: ProductRow;
  /** ',"fiscal":{...}}': replaces the final '}' of `json` when fiscal data is asked for. */
  fiscalClose: Buffer;
  /** By channel, then by Outcome. */
  rendered: Record<MenuChannel, Rendered[]>;
};

const CHANNELS: MenuChannel[] = ['in_store', 'delivery'];
const ALWAYS: MenuSchedule[] = [];
const NEVER: MenuSchedule[] = [{ weekday: -1, start: '00:00', end: '00:00' }];
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

/** Everything before availability.resolved, ending in `"resolved":`. */
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

function renderChannel(
  row: ProductRow,
  category: MenuCategoryInput,
  groups: GroupRow[],
  comboItems: number,
  channel: MenuChannel,
): Rendered[] {
  const head = renderHead(row, groups, channel);
  const tail = `},"complement_categories":${JSON.stringify(mapGroups(groups, channel))}}`;
  const product = { ...row, combo_available_items: comboItems, schedules: ALWAYS };
  const byValue = new Map<Buffer, Rendered>();
  // Without any schedule every read is within it: the other outcomes never occur.
  const outcomes = row.schedules.length > 0 || category.schedules.length > 0 ? OUTCOMES : [OUTCOMES[0]];
  const rendered = outcomes.map(({ open, acceptsScheduling }) => {
    const input = {
      product,
      category: { available: category.available, schedules: open ? ALWAYS : NEVER },
      groups,
    };
    const { resolved } = resolveAvailability(input, channel, ANY_INSTANT, acceptsScheduling);
    const value = resolvedJson(resolved);
    let same = byValue.get(value);
    if (!same) {
      // One allocation per kept buffer: pooled temporaries would pin the pool's slabs.
      same = { resolved, json: Buffer.from(`${head}${value.toString()}${tail}`) };
      byValue.set(value, same);
    }
    return same;
  });
  return OUTCOMES.map((_, outcome) => rendered[outcome] ?? rendered[0]);
}

function renderFiscalClose(row: ProductRow): Buffer {
  const fiscal = {} as FiscalValues;
  for (const column of FISCAL_COLUMNS) fiscal[column] = row[column];
  return Buffer.from(`,"fiscal":${JSON.stringify(fiscal)}}`);
}

export function renderProduct(
  row: ProductRow,
  category: MenuCategoryInput,
  groups: GroupRow[],
  comboItems: Record<MenuChannel, number>,
): CatalogProduct {
  const rendered = {} as Record<MenuChannel, Rendered[]>;
  for (const channel of CHANNELS)
    rendered[channel] = renderChannel(row, category, groups, comboItems[channel], channel);
  return { row, fiscalClose: renderFiscalClose(row), rendered };
}
