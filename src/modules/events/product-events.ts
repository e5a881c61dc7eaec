// The events of a product write, made from the entries its history records (the same list of
// changed fields, before and after): one product.created or product.updated per product, and one
// menu.updated for the write naming the channels whose menu answer it may change.
import type { NewEvent } from './outbox.ts';

export type Channel = 'in_store' | 'delivery';
type Entry = { product_id: number; changes: { field: string; from: unknown; to: unknown }[] };

const ONLY: Record<string, Channel[]> = {
  available: ['in_store'],
  available_in_delivery: ['delivery'],
  delivery_price: ['delivery'],
  delivery_price_promotion: ['delivery'],
};

/** The menu channels a changed field shows in (fiscal_info.*: both, in a menu read with include_fiscal_info). */
export function channelsOf(field: string): Channel[] {
  return ONLY[field] ?? ['in_store', 'delivery'];
}

export function productEvents(
  restaurantId: number,
  operation: 'create' | 'edit' | 'bulk' | 'availability',
  entries: Entry[],
): NewEvent[] {
  const type = operation === 'create' ? 'product.created' : 'product.updated';
  const events: NewEvent[] = entries.map(({ product_id, changes }) => ({
    restaurant_id: restaurantId,
    type,
    data: { product_id, operation, changes },
  }));
  return events.concat(menuEvents(restaurantId, entries));
}

/**
 * The menu.updated of a product write, if it changed a field some menu shows (none or one). An
 * edit writes this one from here and its product.updated events in SQL, from the history rows of
 * the same statement (product-repository.ts): the same data as productEvents, sent once.
 */
export function menuEvents(restaurantId: number, entries: Entry[]): NewEvent[] {
  const events: NewEvent[] = [];
  const touched = new Set(entries.flatMap((e) => e.changes.flatMap((c) => channelsOf(c.field))));
  if (touched.size) {
    const channels = (['in_store', 'delivery'] as const).filter((c) => touched.has(c));
    const productIds = entries.map((e) => e.product_id);
    events.push({
      restaurant_id: restaurantId,
      type: 'menu.updated',
      data: { channels, source: 'products', product_ids: productIds },
    });
  }
  return events;
}
