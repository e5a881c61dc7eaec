// The events of a product write, made from the entries its history records (the same list of
// changed fields, before and after): one product.created or product.updated per product, and one
// menu.updated for the write, naming both channels (CHANNELS).
import type { NewEvent } from './outbox.ts';

type Channel = 'in_store' | 'delivery';
type Entry = { product_id: number; changes: { field: string; from: unknown; to: unknown }[] };

/**
 * The channels a changed product field shows in: both, whatever the field. Each channel's menu
 * echoes every price and flag of the product (the in-store menu shows `delivery_price`, the
 * delivery menu `available`), and fiscal attributes show in a menu read with include_fiscal_info.
 */
export const CHANNELS: Channel[] = ['in_store', 'delivery'];

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
  if (entries.some((entry) => entry.changes.length)) {
    events.push({
      restaurant_id: restaurantId,
      type: 'menu.updated',
      data: { channels: CHANNELS, source: 'products', product_ids: entries.map((e) => e.product_id) },
    });
  }
  return events;
}
