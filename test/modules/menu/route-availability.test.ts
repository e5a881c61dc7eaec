import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { findProduct, menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';

// Friday 6 March 2026: 18:00 in Sao Paulo (UTC-3), Saturday 06:00 in Tokyo (UTC+9).
const FRIDAY_18H = '2026-03-06T21:00:00Z';
const FRIDAY_NOON = '2026-03-06T15:00:00Z';
const weekdays = (days: number[], start: string, end: string) =>
  days.map((weekday) => ({ weekday, start, end }));

type Menu = { categories: { id: number; products: { id: number }[] }[] };
const ids = (menu: Menu) => menu.categories.flatMap((c) => c.products.map((p) => p.id));

test('availability resolved through GET /v1/menu', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const bella = await menuWorld(ctx.db, { timezone: 'America/Sao_Paulo', accepts_scheduling: true });
  const main = await bella.category({ name: 'Principal', position: 1 });
  const closed = await bella.category({ name: 'Sazonal', position: 2, available: false });
  const dinner = await bella.category({
    name: 'Jantar',
    position: 3,
    schedules: weekdays([5], '18:00', '23:30'),
  });
  const empty = await bella.category({ name: 'Vazia', position: 4 });
  const p = {
    ok: await bella.product(main, { name: 'Ok', position: 1 }),
    soldOut: await bella.product(main, { name: 'Esgotado', position: 2, sold_off: true, available: false }),
    inStoreOff: await bella.product(main, { name: 'So delivery', position: 3, available: false }),
    deliveryOff: await bella.product(main, { name: 'So salao', position: 4, available_in_delivery: false }),
    lunch: await bella.product(main, {
      name: 'Almoco',
      position: 5,
      schedules: weekdays([1, 2, 3, 4, 5], '11:00', '15:00'),
    }),
    lunchSoldOut: await bella.product(main, {
      name: 'Almoco esgotado',
      position: 6,
      sold_off: true,
      schedules: weekdays([5], '11:00', '15:00'),
    }),
    // 22:00 to 02:00 across midnight: two windows, as the import format requires.
    lateNight: await bella.product(main, {
      name: 'Madrugada',
      position: 7,
      schedules: [...weekdays([5], '22:00', '24:00'), ...weekdays([6], '00:00', '02:00')],
    }),
    brunch: await bella.product(main, {
      name: 'Brunch',
      position: 8,
      schedules: weekdays([6], '11:00', '15:00'),
    }),
    requiredGone: await bella.product(main, { name: 'Sem borda', position: 9 }),
    requiredShort: await bella.product(main, { name: 'Poucos molhos', position: 10 }),
    optionalGone: await bella.product(main, { name: 'Sem extras', position: 11 }),
    comboShort: await bella.product(main, {
      name: 'Combo curto',
      position: 12,
      is_combo: true,
      combo_min_items: 2,
    }),
    comboByChannel: await bella.product(main, {
      name: 'Combo delivery',
      position: 13,
      is_combo: true,
      combo_min_items: 2,
    }),
    comboNoMinimum: await bella.product(main, { name: 'Combo livre', position: 14, is_combo: true }),
    removedItem: await bella.product(main, { name: 'Retirado', position: 15, removed_at: new Date() }),
    inClosed: await bella.product(closed, { name: 'Sazonal', position: 1 }),
    inDinner: await bella.product(dinner, { name: 'Pizza', position: 1 }),
  };
  const unavailable = (name: string) => ({ name, price: '1.00', available: false });
  const borda = await bella.group({
    name: 'Borda',
    min: 1,
    max: 1,
    options: [unavailable('A'), unavailable('B')],
  });
  const molhos = await bella.group({
    name: 'Molhos',
    min: 2,
    max: 2,
    options: [unavailable('Alho'), { name: 'Pimenta', price: '1.00' }],
  });
  const extras = await bella.group({ name: 'Extras', min: 0, max: 2, options: [unavailable('Bacon')] });
  await bella.link(p.requiredGone, [borda.id]);
  await bella.link(p.requiredShort, [molhos.id]);
  await bella.link(p.optionalGone, [extras.id]);
  await bella.comboItems(p.comboShort, [p.ok, p.soldOut, p.removedItem]);
  await bella.comboItems(p.comboByChannel, [p.ok, p.inStoreOff]);

  const noScheduling = await menuWorld(ctx.db, { timezone: 'America/Sao_Paulo', accepts_scheduling: false });
  const strictLunch = await noScheduling.product(await noScheduling.category({ name: 'Almoco' }), {
    name: 'Executivo',
    schedules: weekdays([1, 2, 3, 4, 5], '11:00', '15:00'),
  });
  const lunchCategory = await noScheduling.category({
    name: 'Pratos do dia',
    schedules: weekdays([5], '11:00', '15:00'),
  });
  const dish = await noScheduling.product(lunchCategory, { name: 'Feijoada' });
  const tokyo = await menuWorld(ctx.db, { timezone: 'Asia/Tokyo', accepts_scheduling: true });
  const tokyoBrunch = await tokyo.product(await tokyo.category({ name: 'Brunch' }), {
    name: 'Brunch',
    schedules: weekdays([6], '11:00', '15:00'),
  });

  const bellaAuth = (await bearerFor(ctx.db, [bella.restaurantId], ['menu:read'])).authorization;
  const read = async (query: string, authorization = bellaAuth) => {
    const res = await menuGet(app, authorization, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const resolved = async (id: number, query: string, authorization = bellaAuth) =>
    findProduct(await read(query, authorization), id)!.availability.resolved;

  const reasons: [string, number, string, string | null][] = [
    ['sold_out comes first, before the channel flag', p.soldOut, 'in_store', 'sold_out'],
    ['sold_out applies on delivery too', p.soldOut, 'delivery', 'sold_out'],
    ['channel_unavailable in store when available is false', p.inStoreOff, 'in_store', 'channel_unavailable'],
    ['available is only the in-store flag: delivery is unaffected', p.inStoreOff, 'delivery', null],
    [
      'channel_unavailable on delivery when available_in_delivery is false',
      p.deliveryOff,
      'delivery',
      'channel_unavailable',
    ],
    ['available_in_delivery does not touch in store', p.deliveryOff, 'in_store', null],
    ['category_unavailable when the category is unavailable', p.inClosed, 'in_store', 'category_unavailable'],
    [
      'required_choice_unavailable when a mandatory group has no available option',
      p.requiredGone,
      'in_store',
      'required_choice_unavailable',
    ],
    [
      'required_choice_unavailable when fewer options than min are available',
      p.requiredShort,
      'delivery',
      'required_choice_unavailable',
    ],
    ['an optional group without available options blocks nothing', p.optionalGone, 'in_store', null],
    [
      'combo_minimum_unmet when sold-out and removed items leave too few',
      p.comboShort,
      'in_store',
      'combo_minimum_unmet',
    ],
    ['combo items count per channel: unmet in store', p.comboByChannel, 'in_store', 'combo_minimum_unmet'],
    ['combo items count per channel: met on delivery', p.comboByChannel, 'delivery', null],
    ['a combo without min_items has no minimum', p.comboNoMinimum, 'in_store', null],
  ];
  for (const [name, id, channel, reason] of reasons) {
    await t.test(name, async () => {
      const result = await resolved(id, `channel=${channel}&at=${FRIDAY_18H}`);
      assert.deepEqual(result, { available: reason === null, reason, schedulable: false });
    });
  }

  await t.test('the flags are echoed next to the resolution', async () => {
    const product = findProduct(await read(`at=${FRIDAY_18H}`), p.soldOut)!;
    assert.deepEqual(
      { ...product.availability, resolved: undefined },
      { available: false, available_in_delivery: true, sold_out: true, resolved: undefined },
    );
  });

  await t.test(
    'outside its schedule a product is schedulable when the restaurant accepts scheduling',
    async () => {
      assert.deepEqual(await resolved(p.lunch, `at=${FRIDAY_18H}`), {
        available: false,
        reason: 'outside_schedule',
        schedulable: true,
      });
      assert.deepEqual(await resolved(p.lunch, `at=${FRIDAY_NOON}`), {
        available: true,
        reason: null,
        schedulable: false,
      });
    },
  );

  await t.test('a product with another reason besides the schedule is not schedulable', async () => {
    assert.deepEqual(await resolved(p.lunchSoldOut, `at=${FRIDAY_18H}`), {
      available: false,
      reason: 'sold_out',
      schedulable: false,
    });
  });

  await t.test('without scheduling permission nothing is schedulable', async () => {
    const auth = (await bearerFor(ctx.db, [noScheduling.restaurantId], ['menu:read'])).authorization;
    assert.deepEqual(await resolved(strictLunch, `at=${FRIDAY_18H}`, auth), {
      available: false,
      reason: 'outside_schedule',
      schedulable: false,
    });
    assert.deepEqual(await resolved(dish, `at=${FRIDAY_18H}`, auth), {
      available: false,
      reason: 'outside_schedule',
      schedulable: false,
    });
    assert.equal((await resolved(dish, `at=${FRIDAY_NOON}`, auth)).available, true);
    const filtered = await read(`only_available=true&at=${FRIDAY_18H}`, auth);
    assert.deepEqual(filtered.categories, []);
    const atLunch = await read(`only_available=true&at=${FRIDAY_NOON}`, auth);
    assert.deepEqual(ids(atLunch).sort(), [strictLunch, dish].sort());
  });

  await t.test('a category schedule applies to its products', async () => {
    assert.equal((await resolved(p.inDinner, `at=${FRIDAY_18H}`)).available, true);
    assert.deepEqual(await resolved(p.inDinner, `at=${FRIDAY_NOON}`), {
      available: false,
      reason: 'outside_schedule',
      schedulable: true,
    });
  });

  const midnight: [string, boolean][] = [
    ['2026-03-07T00:59:00Z', false], // Friday 21:59
    ['2026-03-07T01:00:00Z', true], // Friday 22:00
    ['2026-03-07T02:59:00Z', true], // Friday 23:59
    ['2026-03-07T03:00:00Z', true], // Saturday 00:00
    ['2026-03-07T04:59:00Z', true], // Saturday 01:59
    ['2026-03-07T05:00:00Z', false], // Saturday 02:00
  ];
  for (const [at, open] of midnight) {
    await t.test(
      `a window across midnight (Fri 22:00 to Sat 02:00 local) is ${open ? 'open' : 'closed'} at ${at}`,
      async () => {
        assert.equal((await resolved(p.lateNight, `at=${at}`)).available, open);
      },
    );
  }

  await t.test('the same instant is read in each restaurant time zone', async () => {
    const tokyoAuth = (await bearerFor(ctx.db, [tokyo.restaurantId], ['menu:read'])).authorization;
    // 03:00 UTC on Saturday: 12:00 in Tokyo, 00:00 in Sao Paulo; both brunches are Sat 11:00-15:00.
    const at = 'at=2026-03-07T03:00:00Z';
    assert.equal((await resolved(tokyoBrunch, at, tokyoAuth)).available, true);
    assert.equal((await resolved(p.brunch, at)).reason, 'outside_schedule');
    assert.equal((await resolved(p.brunch, 'at=2026-03-07T14:00:00Z')).available, true); // 11:00 in Sao Paulo
    assert.equal((await resolved(tokyoBrunch, 'at=2026-03-07T14:00:00Z', tokyoAuth)).available, false); // 23:00 in Tokyo
  });

  await t.test(
    'only_available=true lists what can be ordered now or for later and drops emptied categories',
    async () => {
      const menu = await read(`only_available=true&channel=in_store&at=${FRIDAY_18H}`);
      assert.deepEqual(
        menu.categories.map((c: { id: number }) => c.id),
        [main, dinner],
      );
      assert.deepEqual(ids(menu), [
        p.ok,
        p.deliveryOff,
        p.lunch,
        p.lateNight,
        p.brunch,
        p.optionalGone,
        p.comboNoMinimum,
        p.inDinner,
      ]);
    },
  );

  await t.test('only_available=true follows the channel', async () => {
    const menu = await read(`only_available=true&channel=delivery&at=${FRIDAY_18H}`);
    const listed = ids(menu);
    assert.ok(listed.includes(p.inStoreOff) && listed.includes(p.comboByChannel));
    assert.ok(!listed.includes(p.deliveryOff) && !listed.includes(p.soldOut));
  });

  await t.test(
    'an unavailable category hides its products from the availability-filtered menu only',
    async () => {
      const filtered = await read(`only_available=true&at=${FRIDAY_18H}`);
      assert.equal(
        filtered.categories.some((c: { id: number }) => c.id === closed),
        false,
      );
      const full = await read(`only_available=false&at=${FRIDAY_18H}`);
      const category = full.categories.find((c: { id: number }) => c.id === closed);
      assert.equal(category.available, false);
      assert.deepEqual(
        category.products.map((x: { id: number }) => x.id),
        [p.inClosed],
      );
    },
  );

  await t.test(
    'only_available=false returns every product of every listed category, empty ones included',
    async () => {
      const menu = await read(`at=${FRIDAY_18H}`);
      assert.deepEqual(
        menu.categories.map((c: { id: number }) => c.id),
        [main, closed, dinner, empty],
      );
      const expected = Object.values(p).filter((id) => id !== p.removedItem);
      assert.deepEqual(ids(menu).sort(), expected.sort());
    },
  );

  await t.test('the menu reads the same whether whole runs or single products are sent', async () => {
    // include_fiscal_info=true assembles product by product; without it, runs go out whole.
    const stripFiscal = (menu: Menu & { categories: { products: { fiscal?: unknown }[] }[] }) => {
      for (const category of menu.categories) for (const product of category.products) delete product.fiscal;
      return menu;
    };
    for (const at of [FRIDAY_18H, FRIDAY_NOON, '2026-03-07T03:00:00Z']) {
      for (const query of [
        'channel=in_store',
        'channel=delivery',
        'only_available=true',
        'channel=delivery&only_available=true',
      ]) {
        const whole = await read(`${query}&at=${at}`);
        const single = stripFiscal(await read(`${query}&at=${at}&include_fiscal_info=true`));
        assert.deepEqual(single, whole, `${query} at ${at}`);
      }
    }
  });
});
