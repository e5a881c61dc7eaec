// The product columns several modules read by name (catalog writes and reads, the menu).
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
