import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatCents, pricingMode, resolvePrice, toCents } from '../../../src/modules/menu/price.ts';
import type { MenuChannel, MenuPriceFields } from '../../../src/modules/menu/types.ts';

type Field = keyof MenuPriceFields;

const FIELDS: Field[] = ['price', 'price_promotion', 'delivery_price', 'delivery_price_promotion'];
// A distinct positive value per field, so base alone already tells which field won.
const POSITIVE: Record<Field, string> = {
  price: '42.90',
  price_promotion: '39.90',
  delivery_price: '45.90',
  delivery_price_promotion: '44.90',
};

type Grid = Record<Field, string | null>;

function grid(): Grid[] {
  let rows: Grid[] = [{} as Grid];
  for (const field of FIELDS) {
    rows = rows.flatMap((row) =>
      [null, '0.00', POSITIVE[field]].map((value) => ({ ...row, [field]: value })),
    );
  }
  return rows;
}

// The contract's table, restated independently: walk the channel's list, stop at the first non-null.
const CHAIN: Record<MenuChannel, Field[]> = {
  in_store: ['price_promotion', 'price'],
  delivery: ['delivery_price_promotion', 'delivery_price', 'price'],
};

function label(row: Grid): string {
  return FIELDS.map((field) => `${field}=${row[field]}`).join(' ');
}

for (const channel of ['in_store', 'delivery'] as const) {
  describe(`every null / 0 / positive combination on ${channel}`, () => {
    const rows = grid();

    test('the grid has 81 combinations', () => {
      assert.equal(rows.length, 81);
    });

    for (const row of rows) {
      const winner = CHAIN[channel].find((field) => row[field] !== null);
      const product = row as unknown as MenuPriceFields;
      if (winner === undefined) {
        test(`a product without any price in its chain is rejected (${label(row)})`, () => {
          assert.throws(() => resolvePrice(product, channel), TypeError);
        });
        continue;
      }
      test(`base comes from ${winner} when ${label(row)}`, () => {
        assert.deepEqual(resolvePrice(product, channel), { base: row[winner], source: winner });
      });
    }
  });
}

function prices(overrides: Partial<MenuPriceFields>): MenuPriceFields {
  return {
    price: '42.90',
    price_promotion: null,
    delivery_price: null,
    delivery_price_promotion: null,
    ...overrides,
  };
}

describe('resolvePrice', () => {
  test('the in-store promotion is never a delivery fallback', () => {
    const product = prices({ price_promotion: '10.00' });
    assert.deepEqual(resolvePrice(product, 'delivery'), { base: '42.90', source: 'price' });
    assert.deepEqual(resolvePrice(product, 'in_store'), { base: '10.00', source: 'price_promotion' });
  });

  test('a delivery price does not change the in-store price', () => {
    const product = prices({ delivery_price: '45.90', delivery_price_promotion: '44.00' });
    assert.deepEqual(resolvePrice(product, 'in_store'), { base: '42.90', source: 'price' });
  });

  test('zero is a real price and does not fall through', () => {
    assert.deepEqual(resolvePrice(prices({ price_promotion: '0.00' }), 'in_store'), {
      base: '0.00',
      source: 'price_promotion',
    });
    assert.deepEqual(resolvePrice(prices({ delivery_price: '0.00' }), 'delivery'), {
      base: '0.00',
      source: 'delivery_price',
    });
    assert.deepEqual(
      resolvePrice(prices({ delivery_price_promotion: '0.00', delivery_price: '5.00' }), 'delivery'),
      {
        base: '0.00',
        source: 'delivery_price_promotion',
      },
    );
    assert.deepEqual(resolvePrice(prices({ price: '0.00' }), 'delivery'), { base: '0.00', source: 'price' });
  });

  test('a promotion higher than the price still replaces it', () => {
    assert.equal(resolvePrice(prices({ price_promotion: '50.00' }), 'in_store').base, '50.00');
  });

  test('base always has two decimals', () => {
    assert.equal(resolvePrice(prices({ price: '42.9' }), 'in_store').base, '42.90');
    assert.equal(resolvePrice(prices({ price: '7' }), 'delivery').base, '7.00');
  });
});

describe('pricingMode', () => {
  test('weight products are priced per kilogram even with a starting price', () => {
    assert.equal(pricingMode({ use_weight: true, has_starting_price: true }), 'per_kg');
    assert.equal(pricingMode({ use_weight: true, has_starting_price: false }), 'per_kg');
  });

  test('a starting price without weight is shown as starting at', () => {
    assert.equal(pricingMode({ use_weight: false, has_starting_price: true }), 'starting_at');
  });

  test('anything else is a fixed price', () => {
    assert.equal(pricingMode({ use_weight: false, has_starting_price: false }), 'fixed');
  });
});

describe('money in cents', () => {
  test('amounts are parsed to integer cents and formatted back with two decimals', () => {
    assert.equal(toCents('42.90'), 4290);
    assert.equal(toCents('0.05'), 5);
    assert.equal(toCents('0.5'), 50);
    assert.equal(toCents('9999999999.99'), 999999999999);
    assert.equal(formatCents(4290), '42.90');
    assert.equal(formatCents(5), '0.05');
    assert.equal(formatCents(0), '0.00');
    assert.equal(formatCents(-150), '-1.50');
  });

  test('strings that are not plain amounts are rejected', () => {
    for (const bad of ['', 'R$ 1,00', '1,00', '1.234', '1e3', ' 1.00', 'NaN']) {
      assert.throws(() => toCents(bad), TypeError, bad);
    }
  });
});
