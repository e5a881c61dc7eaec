// The product columns several modules read by name (catalog writes and reads, the menu), and a
// product row's type: the `products` table's (types.ts), of which each reader picks its columns.
import type { Selectable } from 'kysely';
import type { ProductsTable } from './types.ts';

export const MONEY_FIELDS = [
  'price',
  'price_promotion',
  'delivery_price',
  'delivery_price_promotion',
] as const;
export const FLAG_FIELDS = [
  'available',
  'available_in_delivery',
  'sold_off',
  'use_weight',
  'has_starting_price',
  'charge_service_tax',
] as const;

export type MoneyField = (typeof MONEY_FIELDS)[number];
export type FlagField = (typeof FLAG_FIELDS)[number];

/** Every column of a product as read: money as numeric text, instants as Date. */
export type ProductColumns = Selectable<ProductsTable>;
