import { isWithin } from './schedule.ts';
import type {
  MenuAvailability,
  MenuCategoryInput,
  MenuChannel,
  MenuClock,
  MenuGroupInput,
  MenuProductInput,
  MenuResolvedAvailability,
  MenuUnavailableReason,
} from './types.ts';

export type AvailabilityInput = {
  product: Pick<
    MenuProductInput,
    | 'available'
    | 'available_in_delivery'
    | 'sold_off'
    | 'schedules'
    | 'is_combo'
    | 'combo_min_items'
    | 'combo_available_items'
  >;
  category: Pick<MenuCategoryInput, 'available' | 'schedules'>;
  /** The product's complement groups. */
  groups: readonly MenuGroupInput[];
};

function lacksRequiredChoice(groups: readonly MenuGroupInput[]): boolean {
  return groups.some((group) => {
    if (group.min < 1) return false;
    let available = 0;
    for (const option of group.options) if (option.available) available++;
    return available < group.min;
  });
}

/** Every reason that applies, in the order of menu.md; the first is the one reported. */
function unavailableReasons(
  input: AvailabilityInput,
  channel: MenuChannel,
  clock: MenuClock,
): MenuUnavailableReason[] {
  const { product, category } = input;
  const reasons: MenuUnavailableReason[] = [];
  if (product.sold_off) reasons.push('sold_out');
  const onChannel = channel === 'delivery' ? product.available_in_delivery : product.available;
  if (!onChannel) reasons.push('channel_unavailable');
  if (!category.available) reasons.push('category_unavailable');
  if (!isWithin(product.schedules, clock) || !isWithin(category.schedules, clock)) {
    reasons.push('outside_schedule');
  }
  if (lacksRequiredChoice(input.groups)) reasons.push('required_choice_unavailable');
  if (product.is_combo && product.combo_min_items !== null) {
    if (product.combo_available_items < product.combo_min_items) reasons.push('combo_minimum_unmet');
  }
  return reasons;
}

export function resolveAvailability(
  input: AvailabilityInput,
  channel: MenuChannel,
  clock: MenuClock,
  acceptsScheduling: boolean,
): MenuAvailability {
  const reasons = unavailableReasons(input, channel, clock);
  const { product } = input;
  return {
    available: product.available,
    available_in_delivery: product.available_in_delivery,
    sold_out: product.sold_off,
    resolved: {
      available: reasons.length === 0,
      reason: reasons[0] ?? null,
      // Only a product that is fine apart from the hour can be ordered for later.
      schedulable: acceptsScheduling && reasons.length === 1 && reasons[0] === 'outside_schedule',
    },
  };
}

/** With only_available=true a product is listed when available now or orderable for later. */
export function isListed(resolved: MenuResolvedAvailability, onlyAvailable: boolean): boolean {
  return !onlyAvailable || resolved.available || resolved.schedulable;
}
