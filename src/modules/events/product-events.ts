// The events of a product write, made from the entries its history records (the same list of
// changed fields, before and after): one product.created or product.updated per product, and one
// menu.updated for the write, naming both channels (menu-updated.ts).
import { menuUpdated } from './menu-updated.ts';
import type { NewEvent } from './outbox.ts';

type Entry = { product_id: number; changes: { field: string; from: unknown; to: unknown }[] };

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
    events.push(
      menuUpdated(
        restaurantId,
        'products',
        entries.map((e) => e.product_id),
      ),
    );
  }
  return events;
}
