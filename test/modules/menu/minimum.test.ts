import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { optionPrice, resolveMinimum, resolvePrice } from '../../../src/modules/menu/price.ts';
import type { MenuGroupInput, MenuOptionInput } from '../../../src/modules/menu/types.ts';

let nextId = 1;

function option(price: string, extra: Partial<MenuOptionInput> = {}): MenuOptionInput {
  const id = nextId++;
  return { id, name: `Option ${id}`, price, delivery_price: null, available: true, ...extra };
}

function group(min: number, options: MenuOptionInput[], max = Math.max(min, options.length)): MenuGroupInput {
  const id = nextId++;
  return { id, name: `Group ${id}`, min, max, options };
}

describe('resolveMinimum', () => {
  test('without groups the minimum is the base', () => {
    assert.equal(resolveMinimum('42.90', [], 'in_store'), '42.90');
  });

  test('each mandatory group adds its cheapest option', () => {
    const groups = [
      group(1, [option('8.00'), option('5.00'), option('6.50')]),
      group(1, [option('3.00'), option('2.50')]),
    ];
    assert.equal(resolveMinimum('42.90', groups, 'in_store'), '50.40');
  });

  test('a group with min 2 adds its two cheapest options', () => {
    const groups = [group(2, [option('4.00'), option('1.00'), option('3.00'), option('2.00')])];
    assert.equal(resolveMinimum('10.00', groups, 'in_store'), '13.00');
  });

  test('unavailable options are never counted, even when cheapest', () => {
    const groups = [group(1, [option('0.50', { available: false }), option('4.00'), option('6.00')])];
    assert.equal(resolveMinimum('10.00', groups, 'in_store'), '14.00');
  });

  test('optional groups are ignored', () => {
    const groups = [group(0, [option('1.00'), option('2.00')], 2), group(1, [option('3.00')])];
    assert.equal(resolveMinimum('10.00', groups, 'in_store'), '13.00');
  });

  test('a free option is a real price and keeps the minimum at the base', () => {
    const groups = [group(1, [option('0.00'), option('5.00')])];
    assert.equal(resolveMinimum('10.00', groups, 'in_store'), '10.00');
  });

  test('on delivery an option uses its delivery price, falling back to its price', () => {
    const options = [
      option('2.00', { delivery_price: '7.00' }),
      option('5.00'), // no delivery price: 5.00 on delivery
      option('6.00', { delivery_price: '0.00' }), // zero is real: free on delivery
    ];
    assert.equal(optionPrice(options[0], 'delivery'), '7.00');
    assert.equal(optionPrice(options[1], 'delivery'), '5.00');
    assert.equal(optionPrice(options[2], 'delivery'), '0.00');
    assert.equal(resolveMinimum('10.00', [group(1, options)], 'delivery'), '10.00');
    assert.equal(resolveMinimum('10.00', [group(2, options)], 'delivery'), '15.00');
  });

  test('in store an option uses its price and ignores its delivery price', () => {
    const options = [option('2.00', { delivery_price: '0.00' }), option('5.00')];
    assert.equal(optionPrice(options[0], 'in_store'), '2.00');
    assert.equal(resolveMinimum('10.00', [group(1, options)], 'in_store'), '12.00');
  });

  test('the cheapest option can differ between channels', () => {
    const groups = [group(1, [option('3.00', { delivery_price: '9.00' }), option('4.00')])];
    assert.equal(resolveMinimum('10.00', groups, 'in_store'), '13.00');
    assert.equal(resolveMinimum('10.00', groups, 'delivery'), '14.00');
  });

  test('a weight product adds its options once to the price per kilogram', () => {
    const perKg = {
      price: '69.90',
      price_promotion: null,
      delivery_price: null,
      delivery_price_promotion: null,
    };
    const base = resolvePrice(perKg, 'in_store').base;
    assert.equal(resolveMinimum(base, [group(1, [option('4.50')])], 'in_store'), '74.40');
  });

  test('sums are exact in cents where floats would drift', () => {
    const groups = [group(2, [option('0.10'), option('0.20')])];
    assert.equal(resolveMinimum('0.10', groups, 'in_store'), '0.40');
    const many = Array.from({ length: 10 }, () => group(1, [option('0.10')]));
    assert.equal(resolveMinimum('0.00', many, 'in_store'), '1.00');
  });

  test('a mandatory group that cannot be satisfied adds all it has available', () => {
    const groups = [group(3, [option('1.00'), option('2.00'), option('9.00', { available: false })])];
    assert.equal(resolveMinimum('10.00', groups, 'in_store'), '13.00');
    assert.equal(
      resolveMinimum('10.00', [group(1, [option('5.00', { available: false })])], 'in_store'),
      '10.00',
    );
  });
});
