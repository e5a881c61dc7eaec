// Inputs of the menu resolution functions. Field names mirror the database columns and the
// import format, so repository rows can be passed through without renaming.
import type { FlagField, MoneyField, ProductColumns } from '../../db/product-columns.ts';

export type MenuChannel = 'in_store' | 'delivery';

/** 'HH:MM' (or PostgreSQL's 'HH:MM:SS'); weekday 0 = Sunday; start inclusive, end exclusive. */
export type MenuSchedule = {
  weekday: number;
  start: string;
  end: string;
};

/** Local weekday (0 = Sunday) and minute of the day (0-1439) in the restaurant's time zone. */
export type MenuClock = {
  weekday: number;
  minutes: number;
};

/** Money is a string with two decimals, as PostgreSQL numeric gives it. */
export type MenuOptionInput = {
  id: number;
  name: string;
  price: string;
  delivery_price: string | null;
  available: boolean;
};

export type MenuGroupInput = {
  id: number;
  name: string;
  min: number;
  max: number;
  options: readonly MenuOptionInput[];
};

export type MenuCategoryInput = {
  id: number;
  name: string;
  position: number;
  available: boolean;
  schedules: readonly MenuSchedule[];
};

/** The product's columns the menu reads, with what the caller computes (types of db/types.ts). */
export type MenuProductInput = Pick<
  ProductColumns,
  | 'id'
  | 'product_category_id'
  | 'name'
  | 'description'
  | 'position'
  | MoneyField
  | FlagField
  | 'is_combo'
  | 'combo_min_items'
> & {
  /** How many of the combo's items are available now; computed by the caller. */
  combo_available_items: number;
  complement_category_ids: readonly number[];
  schedules: readonly MenuSchedule[];
};

export type MenuPriceFields = Pick<MenuProductInput, MoneyField>;

export type MenuPriceSource = 'price_promotion' | 'price' | 'delivery_price_promotion' | 'delivery_price';

export type MenuPricingMode = 'per_kg' | 'starting_at' | 'fixed';

/** Why a product is not available (contract 2.4); the response schema lists the same. */
export const UNAVAILABLE_REASONS = [
  'sold_out',
  'channel_unavailable',
  'category_unavailable',
  'outside_schedule',
  'required_choice_unavailable',
  'combo_minimum_unmet',
] as const;

export type MenuUnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

export type MenuResolvedAvailability = {
  available: boolean;
  reason: MenuUnavailableReason | null;
  schedulable: boolean;
};

export type MenuAvailability = {
  available: boolean;
  available_in_delivery: boolean;
  sold_out: boolean;
  resolved: MenuResolvedAvailability;
};
