// Prices through the route. The exhaustive null / 0 / positive grid is in price.test.ts; here a
// few products cover each branch of both chains end to end, and the minimum with real groups.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { findProduct, menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';

type Prices = {
  price: string;
  price_promotion?: string;
  delivery_price?: string;
  delivery_price_promotion?: string;
};
type Resolved = [base: string, source: string];

// price fields -> [in_store, delivery] as [base, source]
const TABLE: [string, Prices, Resolved, Resolved][] = [
  ['only price', { price: '42.90' }, ['42.90', 'price'], ['42.90', 'price']],
  [
    'an in-store promotion is never a delivery fallback',
    { price: '42.90', price_promotion: '39.90' },
    ['39.90', 'price_promotion'],
    ['42.90', 'price'],
  ],
  [
    'a delivery price replaces price on delivery only',
    { price: '42.90', delivery_price: '45.90' },
    ['42.90', 'price'],
    ['45.90', 'delivery_price'],
  ],
  [
    'a delivery price of 0 is free delivery, not a fallback',
    { price: '42.90', delivery_price: '0.00' },
    ['42.90', 'price'],
    ['0.00', 'delivery_price'],
  ],
  [
    'a promotion of 0 is a real price',
    { price: '42.90', price_promotion: '0.00' },
    ['0.00', 'price_promotion'],
    ['42.90', 'price'],
  ],
  [
    'the delivery promotion wins over the delivery price',
    { price: '42.90', price_promotion: '30.00', delivery_price: '45.90', delivery_price_promotion: '44.90' },
    ['30.00', 'price_promotion'],
    ['44.90', 'delivery_price_promotion'],
  ],
  [
    'a delivery promotion of 0 wins even without a delivery price',
    { price: '42.90', delivery_price_promotion: '0.00' },
    ['42.90', 'price'],
    ['0.00', 'delivery_price_promotion'],
  ],
  ['a price of 0 with nothing else', { price: '0.00' }, ['0.00', 'price'], ['0.00', 'price']],
];

test('prices resolved through GET /v1/menu', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await menuWorld(ctx.db);
  const category = await world.category({ name: 'Pratos' });
  const ids = new Map<string, number>();
  for (const [name, prices] of TABLE) ids.set(name, await world.product(category, { name, ...prices }));

  // Minimum: base 30.00 (in store) / 32.00 (delivery) plus the cheapest valid mandatory choices.
  const sizes = await world.group({
    name: 'Tamanho',
    min: 1,
    max: 1,
    options: [
      { name: 'Grande', price: '5.00', delivery_price: '1.00' },
      { name: 'Promo', price: '3.00', available: false },
      { name: 'Media', price: '4.00' },
    ],
  });
  const sauces = await world.group({
    name: 'Molhos',
    min: 2,
    max: 3,
    options: [
      { name: 'Alho', price: '1.00', delivery_price: '6.00' },
      { name: 'Pimenta', price: '2.00' },
      { name: 'Retirado', price: '0.50', removed_at: new Date() },
      { name: 'Barbecue', price: '3.00' },
    ],
  });
  const extras = await world.group({
    name: 'Extras',
    min: 0,
    max: 5,
    options: [{ name: 'Bacon', price: '0.10' }],
  });
  const old = await world.group({
    name: 'Antigo',
    min: 1,
    max: 1,
    removed_at: new Date(),
    options: [{ name: 'Caro', price: '99.00' }],
  });
  const platter = await world.product(category, {
    name: 'Prato feito',
    price: '30.00',
    delivery_price: '32.00',
    has_starting_price: true,
  });
  await world.link(platter, [sauces.id, extras.id, old.id, sizes.id]);

  const weighed = await world.product(category, {
    name: 'Buffet',
    price: '69.90',
    use_weight: true,
    has_starting_price: true,
  });
  const startingAt = await world.product(category, {
    name: 'Açaí',
    price: '12.00',
    has_starting_price: true,
  });
  const isCombo = await world.product(category, { name: 'Combo', price: '25.00', is_combo: true });

  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);
  const menus = {
    in_store: (await menuGet(app, authorization, 'channel=in_store')).json(),
    delivery: (await menuGet(app, authorization, 'channel=delivery')).json(),
  };

  for (const [name, prices, inStore, delivery] of TABLE) {
    await t.test(`${name}: in store ${inStore.join(' from ')}, delivery ${delivery.join(' from ')}`, () => {
      for (const [channel, [base, source]] of [
        ['in_store', inStore],
        ['delivery', delivery],
      ] as const) {
        const { pricing } = findProduct(menus[channel], ids.get(name)!)!;
        assert.deepEqual(pricing.resolved, { base, source, minimum: base }, channel);
        assert.equal(pricing.price, prices.price);
        assert.equal(pricing.price_promotion, prices.price_promotion ?? null);
        assert.equal(pricing.delivery_price, prices.delivery_price ?? null);
        assert.equal(pricing.delivery_price_promotion, prices.delivery_price_promotion ?? null);
      }
    });
  }

  await t.test(
    'the minimum adds the cheapest available options of every mandatory group, per channel',
    () => {
      // in store: 30.00 + Media 4.00 (Promo 3.00 is unavailable) + Alho 1.00 + Pimenta 2.00
      assert.equal(findProduct(menus.in_store, platter)!.pricing.resolved.minimum, '37.00');
      // delivery: 32.00 + Grande 1.00 + Pimenta 2.00 + Barbecue 3.00 (Alho costs 6.00 on delivery)
      assert.equal(findProduct(menus.delivery, platter)!.pricing.resolved.minimum, '38.00');
    },
  );

  await t.test('the minimum does not depend on has_starting_price', () => {
    const product = findProduct(menus.in_store, platter)!;
    assert.equal(product.has_starting_price, true);
    assert.equal(product.pricing.mode, 'starting_at');
    assert.equal(product.pricing.resolved.base, '30.00');
  });

  await t.test('groups follow the link order; removed groups and options are not listed', () => {
    const groups = findProduct(menus.delivery, platter)!.complement_categories;
    assert.deepEqual(
      groups.map((g: { name: string; required: boolean; min: number; max: number }) => [
        g.name,
        g.required,
        g.min,
        g.max,
      ]),
      [
        ['Molhos', true, 2, 3],
        ['Extras', false, 0, 5],
        ['Tamanho', true, 1, 1],
      ],
    );
    assert.deepEqual(groups[0].options, [
      { id: sauces.options[0], name: 'Alho', price: '6.00', available: true },
      { id: sauces.options[1], name: 'Pimenta', price: '2.00', available: true },
      { id: sauces.options[3], name: 'Barbecue', price: '3.00', available: true },
    ]);
  });

  await t.test('an unavailable option is listed with available false and its channel price', () => {
    const [grande, promo] = findProduct(menus.in_store, platter)!.complement_categories[2].options;
    assert.deepEqual(grande, { id: sizes.options[0], name: 'Grande', price: '5.00', available: true });
    assert.deepEqual(promo, { id: sizes.options[1], name: 'Promo', price: '3.00', available: false });
  });

  await t.test(
    'the pricing mode: per_kg for weight, else starting_at, else fixed; is_combo is echoed',
    () => {
      assert.equal(findProduct(menus.in_store, weighed)!.pricing.mode, 'per_kg');
      assert.equal(findProduct(menus.in_store, weighed)!.use_weight, true);
      assert.equal(findProduct(menus.in_store, startingAt)!.pricing.mode, 'starting_at');
      assert.equal(findProduct(menus.in_store, isCombo)!.pricing.mode, 'fixed');
      assert.equal(findProduct(menus.in_store, isCombo)!.pricing.is_combo, true);
      assert.equal(findProduct(menus.in_store, startingAt)!.pricing.is_combo, false);
    },
  );
});
