// The one definition of a menu.updated event's data, whatever causes it: a product write
// (product-events.ts), an import (src/import/events.ts) or the clock crossing a schedule boundary
// (src/modules/menu/boundary-job.ts).
import type { NewEvent } from './outbox.ts';

type MenuChannel = 'in_store' | 'delivery';

/**
 * The channels a change shows in: both, whatever it is. Each channel's menu echoes every price and
 * flag of the product (the in-store menu shows `delivery_price`, the delivery menu `available`),
 * fiscal attributes show in a menu read with include_fiscal_info, and a schedule is the category's
 * or product's on either channel.
 */
export const CHANNELS: MenuChannel[] = ['in_store', 'delivery'];

/** What changed the menu's answer: a product write, an import, or the time crossing a schedule boundary. */
type MenuUpdateSource = 'products' | 'import' | 'schedule';

type MenuUpdatedData = {
  channels: MenuChannel[];
  source: MenuUpdateSource;
  /** The products written, for `source: "products"` only. */
  product_ids?: number[];
};

export function menuUpdated(restaurantId: number, source: MenuUpdateSource, productIds?: number[]): NewEvent {
  const data: MenuUpdatedData = { channels: CHANNELS, source };
  if (productIds) data.product_ids = productIds;
  return { restaurant_id: restaurantId, type: 'menu.updated', data };
}
