import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';

type Menu = { categories: { id: number; products: { id: number }[] }[] };
const ids = (menu: Menu) => menu.categories.flatMap((c) => c.products.map((p) => p.id));
const categoryIds = (menu: Menu) => menu.categories.map((c) => c.id);

test('what the menu lists, and its filters', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await menuWorld(ctx.db);
  const removedAt = new Date();
  const c = {
    bakery: await world.category({ name: 'Padaria', position: 2 }),
    drinks: await world.category({ name: 'Bebidas', position: 1 }),
    packaging: await world.category({ name: 'Embalagens', position: 3, kind: 'packaging' }),
    mirror: await world.category({ name: 'iFood', position: 0, kind: 'marketplace_mirror' }),
    removed: await world.category({ name: 'Antiga', position: 4, removed_at: removedAt }),
  };
  const p = {
    pao: await world.product(c.bakery, { name: 'Pão de queijo', position: 2, description: 'Porção com 10' }),
    frances: await world.product(c.bakery, { name: 'PAO FRANCES', position: 1 }),
    bolo: await world.product(c.bakery, { name: 'Bolo', position: 3, description: 'Massa de pão-de-ló' }),
    cafe: await world.product(c.drinks, { name: 'Café', position: 1, description: null }),
    soldOutJuice: await world.product(c.drinks, { name: 'Suco de açaí', position: 2, sold_off: true }),
    removed: await world.product(c.drinks, { name: 'Chá retirado', position: 3, removed_at: removedAt }),
    box: await world.product(c.packaging, { name: 'Caixa de pão', price: '1.50' }),
    mirrored: await world.product(c.mirror, { name: 'Pão (iFood)' }),
    forgotten: await world.product(c.removed, { name: 'Pão antigo' }),
  };
  const sizes = await world.group({
    name: 'Tamanho',
    min: 1,
    options: [
      { name: 'Pequeno', price: '0.00' },
      { name: 'Gigante', price: '9.00', removed_at: removedAt },
    ],
  });
  const oldGroup = await world.group({
    name: 'Antigo',
    min: 0,
    removed_at: removedAt,
    options: [{ name: 'X', price: '1.00' }],
  });
  await world.link(p.cafe, [oldGroup.id, sizes.id]);
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);
  const read = async (query = '') => {
    const res = await menuGet(app, authorization, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  await t.test('categories and products come in position order', async () => {
    const menu = await read();
    assert.deepEqual(categoryIds(menu), [c.drinks, c.bakery]);
    assert.deepEqual(ids(menu), [p.cafe, p.soldOutJuice, p.frances, p.pao, p.bolo]);
  });

  await t.test(
    'packaging, marketplace mirrors and removed categories and products never appear',
    async () => {
      for (const query of ['', 'only_available=true', 'channel=delivery', 'search=pao']) {
        const menu = await read(query);
        for (const id of [c.packaging, c.mirror, c.removed])
          assert.equal(categoryIds(menu).includes(id), false, query);
        for (const id of [p.removed, p.box, p.mirrored, p.forgotten])
          assert.equal(ids(menu).includes(id), false, query);
      }
    },
  );

  await t.test('removed groups and removed options never appear', async () => {
    const menu = await read();
    const groups = menu.categories[0].products[0].complement_categories;
    assert.deepEqual(
      groups.map((g: { id: number }) => g.id),
      [sizes.id],
    );
    assert.deepEqual(
      groups[0].options.map((o: { id: number }) => o.id),
      [sizes.options[0]],
    );
  });

  await t.test('category_id keeps only that category', async () => {
    const menu = await read(`category_id=${c.bakery}`);
    assert.deepEqual(categoryIds(menu), [c.bakery]);
    assert.deepEqual(ids(menu), [p.frances, p.pao, p.bolo]);
  });

  await t.test('category_id of a category that is not listed gives an empty menu', async () => {
    for (const id of [c.packaging, c.mirror, c.removed, 999999]) {
      assert.deepEqual((await read(`category_id=${id}`)).categories, []);
    }
  });

  await t.test('search ignores case and accents, both ways', async () => {
    assert.deepEqual(ids(await read('search=PAO')), [p.frances, p.pao, p.bolo]);
    assert.deepEqual(ids(await read(`search=${encodeURIComponent('pão')}`)), [p.frances, p.pao, p.bolo]);
    assert.deepEqual(ids(await read(`search=${encodeURIComponent('CAFÉ')}`)), [p.cafe]);
    assert.deepEqual(ids(await read('search=acai')), [p.soldOutJuice]);
  });

  await t.test('search looks into the description too', async () => {
    assert.deepEqual(ids(await read(`search=${encodeURIComponent('porção')}`)), [p.pao]);
  });

  await t.test('search drops the categories it leaves empty', async () => {
    assert.deepEqual(categoryIds(await read('search=cafe')), [c.drinks]);
    assert.deepEqual((await read('search=pizza')).categories, []);
  });

  await t.test('an empty search lists everything', async () => {
    assert.deepEqual(ids(await read('search=')), ids(await read()));
  });

  await t.test('filters combine', async () => {
    assert.deepEqual(ids(await read(`search=a&category_id=${c.drinks}&only_available=true`)), [p.cafe]);
    assert.deepEqual((await read(`search=acai&only_available=true`)).categories, []);
  });
});
