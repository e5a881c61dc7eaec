import type {
  MenuChannel,
  MenuGroupInput,
  MenuOptionInput,
  MenuPriceFields,
  MenuPriceSource,
  MenuPricingMode,
  MenuProductInput,
} from './types.ts';

type ResolvedPrice = { base: string; source: MenuPriceSource };

const MONEY = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

/** "42.90" -> 4290. Integer cents keep sums exact (0.10 + 0.20 is 0.30 here). */
export function toCents(value: string): number {
  const match = MONEY.exec(value);
  if (!match) throw new TypeError(`not a money amount: ${JSON.stringify(value)}`);
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '0').padEnd(2, '0'));
  return match[1] === '-' ? -cents : cents;
}

/** 4290 -> "42.90". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function resolved(value: string, source: MenuPriceSource): ResolvedPrice {
  return { base: formatCents(toCents(value)), source };
}

/**
 * First non-null price of the channel's chain (contract 2.4). Only null falls through: "0.00" is a
 * real price. The in-store promotion is never a delivery fallback.
 */
export function resolvePrice(product: MenuPriceFields, channel: MenuChannel): ResolvedPrice {
  if (channel === 'delivery') {
    if (product.delivery_price_promotion !== null) {
      return resolved(product.delivery_price_promotion, 'delivery_price_promotion');
    }
    if (product.delivery_price !== null) return resolved(product.delivery_price, 'delivery_price');
  } else if (product.price_promotion !== null) {
    return resolved(product.price_promotion, 'price_promotion');
  }
  // price is NOT NULL in the database; reaching here without it means a broken row.
  if (product.price === null) throw new TypeError('product has no price');
  return resolved(product.price, 'price');
}

export function pricingMode(
  product: Pick<MenuProductInput, 'use_weight' | 'has_starting_price'>,
): MenuPricingMode {
  if (product.use_weight) return 'per_kg';
  if (product.has_starting_price) return 'starting_at';
  return 'fixed';
}

/** An option's price for the channel: delivery_price falling back to price on delivery. */
export function optionPrice(
  option: Pick<MenuOptionInput, 'price' | 'delivery_price'>,
  channel: MenuChannel,
): string {
  if (channel === 'delivery' && option.delivery_price !== null) return option.delivery_price;
  return option.price;
}

/**
 * What a group adds to the minimum, in cents: its `min` cheapest available options, or all its
 * available options when fewer than `min` are (0 for an optional group).
 */
export function mandatoryCents(group: MenuGroupInput, channel: MenuChannel): number {
  if (group.min < 1) return 0;
  const prices: number[] = [];
  for (const option of group.options) {
    if (option.available) prices.push(toCents(optionPrice(option, channel)));
  }
  prices.sort((a, b) => a - b);
  const count = Math.min(group.min, prices.length);
  let total = 0;
  for (let i = 0; i < count; i++) total += prices[i];
  return total;
}

/**
 * base + the `min` cheapest available options of every mandatory group. For weight products base is
 * the price per kilogram and options are added once: the menu knows no weight (contract 2.1).
 * A mandatory group with fewer available options than `min` adds all its available options, so
 * minimum stays a lower bound of any future order; availability reports required_choice_unavailable.
 */
export function resolveMinimum(
  base: string,
  groups: readonly MenuGroupInput[],
  channel: MenuChannel,
): string {
  let total = toCents(base);
  for (const group of groups) total += mandatoryCents(group, channel);
  return formatCents(total);
}
