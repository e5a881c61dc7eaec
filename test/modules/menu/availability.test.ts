import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type AvailabilityInput,
  isListed,
  resolveAvailability,
} from '../../../src/modules/menu/availability.ts';
import type { MenuClock, MenuGroupInput } from '../../../src/modules/menu/types.ts';

// Friday 19:00 local.
const CLOCK: MenuClock = { weekday: 5, minutes: 19 * 60 };
const CLOSED_NOW = [{ weekday: 1, start: '11:00', end: '15:00' }];

type Overrides = {
  product?: Partial<AvailabilityInput['product']>;
  category?: Partial<AvailabilityInput['category']>;
  groups?: MenuGroupInput[];
};

function input(overrides: Overrides = {}): AvailabilityInput {
  return {
    product: {
      available: true,
      available_in_delivery: true,
      sold_off: false,
      schedules: [],
      is_combo: false,
      combo_min_items: null,
      combo_available_items: 0,
      ...overrides.product,
    },
    category: { available: true, schedules: [], ...overrides.category },
    groups: overrides.groups ?? [],
  };
}

function group(min: number, availability: boolean[]): MenuGroupInput {
  const options = availability.map((available, i) => ({
    id: i + 1,
    name: `Option ${i + 1}`,
    price: '1.00',
    delivery_price: null,
    available,
  }));
  return { id: 300, name: 'Borda', min, max: Math.max(min, 1), options };
}

// Every reason applies at once; dropping them one by one shows the order.
const ALL_WRONG: Overrides = {
  product: {
    sold_off: true,
    available: false,
    schedules: CLOSED_NOW,
    is_combo: true,
    combo_min_items: 2,
    combo_available_items: 1,
  },
  category: { available: false },
  groups: [group(1, [false])],
};

function reason(overrides: Overrides, channel: 'in_store' | 'delivery' = 'in_store') {
  return resolveAvailability(input(overrides), channel, CLOCK, true).resolved.reason;
}

describe('resolveAvailability', () => {
  test('a product with nothing wrong is available with no reason', () => {
    assert.deepEqual(resolveAvailability(input(), 'in_store', CLOCK, true), {
      available: true,
      available_in_delivery: true,
      sold_out: false,
      resolved: { available: true, reason: null, schedulable: false },
    });
  });

  test('the stored flags are passed through untouched', () => {
    const result = resolveAvailability(
      input({ product: { available: false, available_in_delivery: true, sold_off: true } }),
      'delivery',
      CLOCK,
      false,
    );
    assert.equal(result.available, false);
    assert.equal(result.available_in_delivery, true);
    assert.equal(result.sold_out, true);
  });

  test('each reason is reported when it applies alone', () => {
    assert.equal(reason({ product: { sold_off: true } }), 'sold_out');
    assert.equal(reason({ product: { available: false } }), 'channel_unavailable');
    assert.equal(reason({ category: { available: false } }), 'category_unavailable');
    assert.equal(reason({ product: { schedules: CLOSED_NOW } }), 'outside_schedule');
    assert.equal(reason({ category: { schedules: CLOSED_NOW } }), 'outside_schedule');
    assert.equal(reason({ groups: [group(2, [true, false])] }), 'required_choice_unavailable');
    assert.equal(
      reason({ product: { is_combo: true, combo_min_items: 3, combo_available_items: 2 } }),
      'combo_minimum_unmet',
    );
  });

  test('the channel flag is the one of the requested channel', () => {
    assert.equal(reason({ product: { available: false } }, 'delivery'), null);
    assert.equal(reason({ product: { available_in_delivery: false } }, 'delivery'), 'channel_unavailable');
    assert.equal(reason({ product: { available_in_delivery: false } }, 'in_store'), null);
  });

  test('a product inside both its own and its category schedule is available', () => {
    const open = [{ weekday: 5, start: '18:00', end: '23:00' }];
    assert.equal(reason({ product: { schedules: open }, category: { schedules: open } }), null);
  });

  test('optional groups and satisfiable mandatory groups do not block the product', () => {
    assert.equal(reason({ groups: [group(0, [false, false])] }), null);
    assert.equal(reason({ groups: [group(2, [true, false, true])] }), null);
  });

  test('combo minimums only apply to combos that declare one', () => {
    assert.equal(reason({ product: { is_combo: true, combo_min_items: 2, combo_available_items: 2 } }), null);
    assert.equal(
      reason({ product: { is_combo: true, combo_min_items: null, combo_available_items: 0 } }),
      null,
    );
    assert.equal(
      reason({ product: { is_combo: false, combo_min_items: 2, combo_available_items: 0 } }),
      null,
    );
  });

  test('when several reasons apply the first in the documented order wins', () => {
    const expected = [
      'sold_out',
      'channel_unavailable',
      'category_unavailable',
      'outside_schedule',
      'required_choice_unavailable',
      'combo_minimum_unmet',
    ];
    const fixes: Overrides[] = [
      { product: { sold_off: false } },
      { product: { available: true } },
      { category: { available: true } },
      { product: { schedules: [] } },
      { groups: [] },
      { product: { is_combo: false } },
    ];
    let current: Overrides = ALL_WRONG;
    for (let i = 0; i < expected.length; i++) {
      assert.equal(reason(current), expected[i]);
      const fix = fixes[i];
      current = {
        product: { ...current.product, ...fix.product },
        category: { ...current.category, ...fix.category },
        groups: fix.groups ?? current.groups,
      };
    }
    assert.equal(reason(current), null);
  });
});

describe('schedulable', () => {
  const closed = input({ product: { schedules: CLOSED_NOW } });

  test('a product only outside its schedule is schedulable when the restaurant accepts scheduling', () => {
    assert.deepEqual(resolveAvailability(closed, 'delivery', CLOCK, true).resolved, {
      available: false,
      reason: 'outside_schedule',
      schedulable: true,
    });
  });

  test('it is not schedulable when the restaurant does not accept scheduling', () => {
    assert.equal(resolveAvailability(closed, 'delivery', CLOCK, false).resolved.schedulable, false);
  });

  test('an available product is not schedulable', () => {
    assert.equal(resolveAvailability(input(), 'in_store', CLOCK, true).resolved.schedulable, false);
  });

  test('outside the schedule plus any later reason is not schedulable', () => {
    const withChoice = input({ product: { schedules: CLOSED_NOW }, groups: [group(1, [false])] });
    const resolved = resolveAvailability(withChoice, 'in_store', CLOCK, true).resolved;
    assert.equal(resolved.reason, 'outside_schedule');
    assert.equal(resolved.schedulable, false);
    const withCombo = input({
      product: { schedules: CLOSED_NOW, is_combo: true, combo_min_items: 2, combo_available_items: 0 },
    });
    assert.equal(resolveAvailability(withCombo, 'in_store', CLOCK, true).resolved.schedulable, false);
  });

  test('outside the schedule plus an earlier reason is not schedulable', () => {
    const soldOut = input({ product: { schedules: CLOSED_NOW, sold_off: true } });
    assert.deepEqual(resolveAvailability(soldOut, 'in_store', CLOCK, true).resolved, {
      available: false,
      reason: 'sold_out',
      schedulable: false,
    });
  });
});

describe('isListed', () => {
  test('without only_available every product is listed', () => {
    assert.equal(isListed({ available: false, reason: 'sold_out', schedulable: false }, false), true);
  });

  test('with only_available a product is listed when available or schedulable', () => {
    assert.equal(isListed({ available: true, reason: null, schedulable: false }, true), true);
    assert.equal(isListed({ available: false, reason: 'outside_schedule', schedulable: true }, true), true);
    assert.equal(isListed({ available: false, reason: 'outside_schedule', schedulable: false }, true), false);
    assert.equal(isListed({ available: false, reason: 'sold_out', schedulable: false }, true), false);
  });
});
