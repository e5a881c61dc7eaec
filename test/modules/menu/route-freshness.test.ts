// The menu keeps assembled catalogs in memory (catalog-cache.ts): these tests warm that cache
// first, then write the way the catalog routes, the importer or psql would, and read again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { twoInstances } from '../../support/app.ts';
import { catalogVersion, findProduct, menuGet, menuWorld } from '../../support/menu-world.ts';
import { bearerFor } from '../../support/tokens.ts';

test('a catalog write is in the very next menu read, on every instance', async (t) => {
  const { database, one, two } = await twoInstances(t);
  const db = one.ctx.db;
  const world = await menuWorld(db);
  const other = await menuWorld(db, { name: 'Outro' });
  const category = await world.category({ name: 'Pizzas' });
  const pizza = await world.product(category, { name: 'Margherita', price: '42.90' });
  const item = await world.product(category, { name: 'Refrigerante', price: '6.00' });
  const combo = await world.product(category, { name: 'Combo', is_combo: true, combo_min_items: 1 });
  await world.comboItems(combo, [item]);
  const borda = await world.group({ name: 'Borda', min: 1, options: [{ name: 'Catupiry', price: '5.00' }] });
  await world.link(pizza, [borda.id]);
  const { authorization } = await bearerFor(db, [world.restaurantId], ['menu:read']);
  const writer = await bearerFor(db, [world.restaurantId], ['products:write']);
  const menuOn = async (instance: typeof one, query = '') => {
    const res = await menuGet(instance.app, authorization, query);
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const pizzaOn = async (instance: typeof one, query = '') =>
    findProduct(await menuOn(instance, query), pizza)!;
  // Both instances hold the catalog before each write.
  const warm = () => Promise.all([menuOn(one), menuOn(two)]);

  await t.test('a price changed in SQL is served at once by both instances', async () => {
    await warm();
    await db.updateTable('products').set({ price: '45.00' }).where('id', '=', pizza).execute();
    assert.equal((await pizzaOn(one)).pricing.resolved.base, '45.00');
    assert.equal((await pizzaOn(two)).pricing.resolved.base, '45.00');
  });

  await t.test('sold out in SQL hides the product from the availability-filtered menu at once', async () => {
    await warm();
    await db.updateTable('products').set({ sold_off: true }).where('id', '=', pizza).execute();
    assert.equal((await pizzaOn(two)).availability.sold_out, true);
    assert.equal(findProduct(await menuOn(one, 'only_available=true'), pizza), undefined);
    await db.updateTable('products').set({ sold_off: false }).where('id', '=', pizza).execute();
    assert.equal((await pizzaOn(one)).availability.resolved.available, true);
  });

  await t.test('a write through the catalog routes of one instance is read on the other', async () => {
    await warm();
    const res = await one.app.inject({
      method: 'PATCH',
      url: `/v1/products/${pizza}/availability`,
      headers: { authorization: writer.authorization },
      payload: { available: false },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await pizzaOn(two)).availability.resolved.reason, 'channel_unavailable');
    await db.updateTable('products').set({ available: true }).where('id', '=', pizza).execute();
  });

  await t.test('a long run of writes, each read right after on alternating instances', async () => {
    for (let i = 1; i <= 20; i++) {
      const price = `${50 + i}.00`;
      await db.updateTable('products').set({ price }).where('id', '=', pizza).execute();
      assert.equal((await pizzaOn(i % 2 ? one : two)).pricing.price, price);
    }
  });

  const writes: [string, () => Promise<unknown>, (instance: typeof one) => Promise<void>][] = [
    [
      'a category rename',
      () =>
        db
          .updateTable('product_categories')
          .set({ name: 'Pizzas doces' })
          .where('id', '=', category)
          .execute(),
      async (i) => assert.equal((await menuOn(i)).categories[0].name, 'Pizzas doces'),
    ],
    [
      'a group made optional',
      () => db.updateTable('complement_categories').set({ min: 0 }).where('id', '=', borda.id).execute(),
      async (i) => assert.equal((await pizzaOn(i)).complement_categories[0].required, false),
    ],
    [
      'an option price',
      () =>
        db
          .updateTable('complement_options')
          .set({ price: '7.00' })
          .where('id', '=', borda.options[0])
          .execute(),
      async (i) => assert.equal((await pizzaOn(i)).complement_categories[0].options[0].price, '7.00'),
    ],
    [
      'an unlinked group',
      () => db.deleteFrom('product_complement_categories').where('product_id', '=', pizza).execute(),
      async (i) => assert.deepEqual((await pizzaOn(i)).complement_categories, []),
    ],
    [
      'a removed combo item',
      () => db.deleteFrom('combo_items').where('combo_product_id', '=', combo).execute(),
      async (i) => {
        const resolved = findProduct(await menuOn(i), combo)!.availability.resolved;
        assert.equal(resolved.reason, 'combo_minimum_unmet');
      },
    ],
    [
      'a new product',
      () => world.product(category, { name: 'Nova', position: 99 }),
      async (i) => assert.equal((await menuOn(i)).categories[0].products.at(-1).name, 'Nova'),
    ],
  ];
  for (const [name, write, check] of writes) {
    await t.test(`${name} is seen by both instances at once`, async () => {
      await warm();
      await write();
      await check(one);
      await check(two);
    });
  }

  await t.test(
    'the instances do serve from memory: a write that skips the trigger stays unseen',
    async () => {
      await warm();
      // session_replication_role = replica silences triggers: the price changes, the version does not.
      await db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await trx.updateTable('products').set({ price: '11.00' }).where('id', '=', pizza).execute();
      });
      assert.notEqual((await pizzaOn(one)).pricing.price, '11.00');
      assert.notEqual((await pizzaOn(two)).pricing.price, '11.00');
      await db.updateTable('products').set({ updated_at: new Date() }).where('id', '=', pizza).execute();
      assert.equal((await pizzaOn(one)).pricing.price, '11.00');
      assert.equal((await pizzaOn(two)).pricing.price, '11.00');
    },
  );

  await t.test('every transaction moves the version of the restaurants it touched, once', async () => {
    const before = await catalogVersion(db, world.restaurantId);
    const otherBefore = await catalogVersion(db, other.restaurantId);
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('products').set({ price: '1.00' }).where('id', '=', pizza).execute();
      await trx.updateTable('products').set({ price: '2.00' }).where('id', '=', item).execute();
      await trx.updateTable('product_categories').set({ position: 5 }).where('id', '=', category).execute();
    });
    assert.equal(await catalogVersion(db, world.restaurantId), before + 1);
    assert.equal(await catalogVersion(db, other.restaurantId), otherBefore);
  });

  await t.test('a write that touches no row and a rolled-back write move nothing', async () => {
    const before = await catalogVersion(db, world.restaurantId);
    await db.updateTable('products').set({ price: '3.00' }).where('id', '=', -1).execute();
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await trx.updateTable('products').set({ price: '4.00' }).where('id', '=', pizza).execute();
        throw new Error('rollback');
      }),
    );
    assert.equal(await catalogVersion(db, world.restaurantId), before);
    assert.equal((await pizzaOn(one)).pricing.price, '1.00');
  });

  await t.test(
    'a read during an uncommitted write neither shows it nor keeps serving the old price after commit',
    {
      skip:
        database.kind === 'pglite'
          ? 'PGlite has one connection: a read cannot run beside an open transaction'
          : false,
    },
    async () => {
      await warm();
      let commit!: () => void;
      const committed = new Promise<void>((resolve) => {
        commit = resolve;
      });
      const writing = db.transaction().execute(async (trx) => {
        await trx.updateTable('products').set({ price: '99.00' }).where('id', '=', pizza).execute();
        await committed;
      });
      await sql`select pg_sleep(0.05)`.execute(two.ctx.db);
      assert.equal((await pizzaOn(two)).pricing.price, '1.00');
      commit();
      await writing;
      assert.equal((await pizzaOn(two)).pricing.price, '99.00');
      assert.equal((await pizzaOn(one)).pricing.price, '99.00');
    },
  );

  const onlyPostgres =
    database.kind === 'pglite' ? 'PGlite has one connection: no concurrent transactions' : false;

  /**
   * A writes the pizza, B locks the drink (as an edit checking expected_updated_at would), A then
   * waits for the drink while B writes the combo. With the version bumped at each statement, A
   * would hold the restaurant row and B would wait for it: a deadlock. Bumped at commit, B
   * finishes first and A follows.
   */
  async function crossedWriters(bumpAtEachStatement: boolean) {
    let locked!: () => void;
    const bHoldsDrink = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const immediate = (trx: Db) =>
      bumpAtEachStatement ? sql`set constraints all immediate`.execute(trx) : null;
    const a = db.transaction().execute(async (trx) => {
      await immediate(trx);
      await trx.updateTable('products').set({ price: '5.00' }).where('id', '=', pizza).execute();
      await bHoldsDrink;
      await trx.updateTable('products').set({ price: '6.00' }).where('id', '=', item).execute();
    });
    const b = db.transaction().execute(async (trx) => {
      await immediate(trx);
      await trx.selectFrom('products').select('id').where('id', '=', item).forUpdate().execute();
      locked();
      await sql`select pg_sleep(0.2)`.execute(trx);
      await trx.updateTable('products').set({ price: '7.00' }).where('id', '=', combo).execute();
    });
    return Promise.allSettled([a, b]);
  }

  await t.test(
    'writers locking products in crossed order do not deadlock on the version',
    { skip: onlyPostgres },
    async () => {
      const before = await catalogVersion(db, world.restaurantId);
      const results = await crossedWriters(false);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'fulfilled'],
      );
      assert.equal(await catalogVersion(db, world.restaurantId), before + 2);
      assert.equal((await pizzaOn(two)).pricing.price, '5.00');
    },
  );

  await t.test(
    'the same writers deadlock when the version is bumped at each statement',
    { skip: onlyPostgres },
    async () => {
      const results = await crossedWriters(true);
      const failure = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
      assert.equal(failure?.reason.code, '40P01');
    },
  );
});
