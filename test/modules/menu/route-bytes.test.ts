// GET /v1/menu byte for byte against the straightforward serialisation (reference-menu.ts) of the
// rows in the database, for combinations of the query, with the cache warm, after writes of each
// kind, and with the restaurant's scheduling setting changed (read on every request).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadCatalogRows } from '../../../src/modules/menu/repository.ts';
import type { MenuChannel } from '../../../src/modules/menu/types.ts';
import { buildTestApp } from '../../support/app.ts';
import { menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';
import { FRIDAY_NIGHT, LUNCH } from './catalog-rows.ts';
import { referenceMenu } from './reference-menu.ts';

const INSTANTS = ['2026-03-04T15:00:00.000Z', '2026-03-06T22:00:00.000Z', '2026-03-08T16:00:00.000Z'];

test('GET /v1/menu answers the bytes of a straightforward serialisation', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await menuWorld(ctx.db, { timezone: 'America/Sao_Paulo', accepts_scheduling: false });
  const pizzas = await world.category({ name: 'Pizzas "da casa"', position: 1 });
  const lunch = await world.category({ name: 'Almoço', position: 2, schedules: LUNCH });
  await world.category({ name: 'Vazia', position: 3 });
  const closed = await world.category({ name: 'Fechada', position: 4, available: false });
  await world.category({ name: 'Embalagens', position: 5, kind: 'packaging' });
  const borda = await world.group({
    name: 'Borda',
    min: 1,
    max: 1,
    options: [
      { name: 'Catupiry', price: '5.00', delivery_price: '6.50' },
      { name: 'Cheddar', price: '4.00', available: false },
    ],
  });
  const extras = await world.group({ name: 'Extras', options: [{ name: 'Azeitona', price: '2.00' }] });
  const fiscal = { ncm: '02109900', cfop: '5102', csosn: '0102', cest: 'aspas " e barra \\ em ação' };
  const margherita = await world.product(pizzas, {
    name: 'Margherita 🍕',
    description: 'Molho, muçarela e "manjericão"\n',
    position: 1,
    price: '42.90',
    delivery_price: '45.90',
    ...fiscal,
  });
  const night = await world.product(pizzas, {
    name: 'Noturna',
    position: 2,
    schedules: FRIDAY_NIGHT,
    ...fiscal,
  });
  await world.product(pizzas, { name: 'Esgotada', position: 3, sold_off: true, ncm: '1' });
  await world.product(pizzas, { name: 'Só salão', position: 4, available_in_delivery: false });
  const item = await world.product(lunch, {
    name: 'Suco',
    position: 1,
    price: '8.00',
    price_promotion: '7.50',
  });
  const combo = await world.product(lunch, {
    name: 'Combo',
    position: 2,
    is_combo: true,
    combo_min_items: 1,
  });
  await world.product(lunch, { name: 'Executivo', position: 3, use_weight: true, schedules: FRIDAY_NIGHT });
  await world.product(closed, { name: 'Fora', position: 1, has_starting_price: true });
  await world.link(margherita, [borda.id, extras.id]);
  await world.link(night, [extras.id]);
  await world.comboItems(combo, [item]);
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);

  async function assertAll(label: string) {
    const rows = await loadCatalogRows(ctx.db, world.restaurantId);
    const restaurant = await ctx.db
      .selectFrom('restaurants')
      .select(['timezone', 'accepts_scheduling'])
      .where('id', '=', world.restaurantId)
      .executeTakeFirstOrThrow();
    for (const channel of ['in_store', 'delivery'] as MenuChannel[])
      for (const at of INSTANTS)
        for (const onlyAvailable of [false, true])
          for (const includeFiscal of [false, true])
            for (const [search, categoryId] of [
              ['', undefined],
              ['MARGHERITA', undefined],
              ['', lunch],
            ] as const) {
              const query = new URLSearchParams({ channel, at, only_available: String(onlyAvailable) });
              if (includeFiscal) query.set('include_fiscal_info', 'true');
              if (search) query.set('search', search);
              if (categoryId) query.set('category_id', String(categoryId));
              const res = await menuGet(app, authorization, query.toString());
              assert.equal(res.statusCode, 200, res.body);
              const expected = referenceMenu(rows, {
                restaurantId: world.restaurantId,
                timezone: restaurant.timezone,
                acceptsScheduling: restaurant.accepts_scheduling,
                channel,
                at: new Date(at),
                onlyAvailable,
                includeFiscal,
                search,
                categoryId,
              });
              assert.equal(res.body, expected, `${label}: ${query}`);
              assert.equal(Number(res.headers['content-length']), res.rawPayload.length);
            }
  }

  await t.test('with the catalog as created', () => assertAll('created'));
  await t.test('again, from the cache', () => assertAll('cached'));
  await t.test('after a product, an option and a category change', async () => {
    await ctx.db
      .updateTable('products')
      .set({ price: '44.00', sold_off: true })
      .where('id', '=', night)
      .execute();
    await ctx.db
      .updateTable('complement_options')
      .set({ available: false })
      .where('name', '=', 'Catupiry')
      .execute();
    await ctx.db
      .updateTable('product_categories')
      .set({ available: false })
      .where('id', '=', lunch)
      .execute();
    await assertAll('after writes');
  });
  await t.test('with scheduled orders accepted', async () => {
    await ctx.db
      .updateTable('restaurants')
      .set({ accepts_scheduling: true })
      .where('id', '=', world.restaurantId)
      .execute();
    await assertAll('scheduling');
  });
});
