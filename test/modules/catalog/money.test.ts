import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { formatCents, MAX_MONEY, numberToCents, toCents } from '../../../src/lib/money.ts';

describe('money helpers (src/lib/money.ts)', () => {
  test('a JSON number with at most two decimals becomes integer cents', () => {
    assert.equal(numberToCents(12.5), 1250);
    assert.equal(numberToCents(0), 0);
    assert.equal(numberToCents(0.01), 1);
    assert.equal(numberToCents(1.1), 110);
    assert.equal(numberToCents(1e3), 100000);
    assert.equal(numberToCents(MAX_MONEY), 999999999999);
    assert.equal(numberToCents(-2.5), -250);
  });

  test('more than two decimals, float noise and exponent forms are refused', () => {
    for (const bad of [1.005, 0.1 + 0.2, 12.345, 1e-7, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.equal(numberToCents(bad), null, String(bad));
    }
  });

  test('amount strings round-trip through cents with two decimals', () => {
    assert.equal(toCents('42.90'), 4290);
    assert.equal(toCents('0.5'), 50);
    assert.equal(formatCents(5), '0.05');
    assert.equal(formatCents(-150), '-1.50');
    for (const bad of ['', 'R$ 1,00', '1,00', '1.234', '1e3', ' 1.00'])
      assert.throws(() => toCents(bad), TypeError);
  });
});
