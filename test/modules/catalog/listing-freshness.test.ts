// GET /v1/products and GET /v1/products/{id} answer from a listing rendered once per catalog
// version (read-service.ts). These tests warm it on two app instances sharing one database, then
// write the way the routes, the importer or psql would, and read again on both.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { importData } from '../../../src/import/import.ts';
import { twoInstances } from '../../support/app.ts';
import { catalogWorld } from '../../support/catalog-world.ts';
import { oracleRoutes } from './oracle.ts';

type Auth = { authorization: string };
type Listed = { id: number; name: string; products: { id: number; name: string; price: string }[] }[];

test('a catalog write is in the very next read of either route, on every instance', async (t) => {
  const { database, one, two } = await twoInstances(t, {
    routes: oracleRoutes,
    config: { rateLimitPerMinute: 1_000_000 },
  });
  const db = one.ctx.db;
  const world = await catalogWorld(db, one.ctx.secrets.sessionSecret);
  const { products, categories, restaurantA, restaurantB, auth } = world;
  type Instance = typeof one;
  const call = (
    instance: Instance,
    method: 'GET' | 'PUT' | 'PATCH' | 'POST',
    url: string,
    payload?: object,
  ) => instance.app.inject({ method, url, headers: method === 'GET' ? auth.read : auth.write, payload });
  const listingOn = async (instance: Instance, credential: Auth = auth.read, query = '') => {
    const res = await instance.app.inject({
      method: 'GET',
      url: `/v1/products${query}`,
      headers: credential,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res;
  };
  const listOn = async (instance: Instance) => (await listingOn(instance)).json() as Listed;
  const productOn = (instance: Instance, id: number, credential: Auth = auth.read) =>
    instance.app.inject({ method: 'GET', url: `/v1/products/${id}`, headers: credential });
  const listedProduct = async (instance: Instance, id: number) =>
    (await listOn(instance)).flatMap((c) => c.products).find((p) => p.id === id);
  /** Both routes on both instances, compared with what the serialiser writes for the rows now. */
  const sameAsRows = async (restaurantId = restaurantA, credential: Auth = auth.read) => {
    const query = credential === auth.partner ? `?restaurant_id=${restaurantId}` : '';
    const expected = await one.app.inject({ method: 'GET', url: `/oracle/${restaurantId}/products` });
    for (const instance of [one, two]) {
      assert.equal((await listingOn(instance, credential, query)).body, expected.body);
    }
    for (const id of Object.values(products)) {
      const url = `/oracle/${restaurantId}/products/${id}`;
      const row = await one.app.inject({ method: 'GET', url });
      for (const instance of [one, two]) {
        const res = await instance.app.inject({
          method: 'GET',
          url: `/v1/products/${id}${query}`,
          headers: credential,
        });
        assert.equal(res.statusCode, row.statusCode === 404 ? 404 : 200, `product ${id}`);
        if (res.statusCode === 200) assert.equal(res.body, row.body, `product ${id}`);
      }
    }
  };
  // Both instances hold the listing before each write.
  const warm = () => Promise.all([listOn(one), listOn(two)]);

  await t.test('a product edited through the routes of one instance is read on the other', async () => {
    await warm();
    const res = await call(one, 'PUT', `/v1/products/${products.margherita}`, { name: 'Margherita DOP' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((await listedProduct(two, products.margherita))?.name, 'Margherita DOP');
    assert.equal((await productOn(two, products.margherita)).json().name, 'Margherita DOP');
    assert.equal((await productOn(one, products.margherita)).body, res.body);
    await sameAsRows();
  });

  await t.test('a bulk edit and an availability change are read on both instances', async () => {
    await warm();
    const bulk = await call(two, 'PUT', '/v1/products/bulk', [
      { id: products.calabresa, price: 31.5 },
      { id: products.soda, price: 7 },
    ]);
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.equal((await listedProduct(one, products.calabresa))?.price, '31.50');
    assert.equal((await productOn(one, products.soda)).json().price, '7.00');
    await warm();
    const patch = await call(one, 'PATCH', `/v1/products/${products.soda}/availability`, {
      available: false,
    });
    assert.equal(patch.statusCode, 200, patch.body);
    assert.equal((await productOn(two, products.soda)).json().available, false);
    await sameAsRows();
  });

  await t.test('a product created through the routes is listed and read at once', async () => {
    await warm();
    const created = await call(two, 'POST', '/v1/products', {
      name: 'Nova',
      price: 12,
      product_category_id: categories.drinks,
    });
    assert.equal(created.statusCode, 201, created.body);
    const { id } = created.json();
    assert.ok(await listedProduct(one, id));
    assert.equal((await productOn(one, id)).body, created.body);
  });

  await t.test('a category edited in SQL is read at once', async () => {
    await warm();
    await db
      .updateTable('product_categories')
      .set({ name: 'Pizzas da casa' })
      .where('id', '=', categories.pizzas)
      .execute();
    for (const instance of [one, two]) {
      assert.equal((await listOn(instance)).find((c) => c.id === categories.pizzas)?.name, 'Pizzas da casa');
    }
    await sameAsRows();
  });

  await t.test('an import is read at once', async () => {
    await warm();
    await importData(db, {
      products: [
        {
          id: products.calabresa,
          restaurant_id: restaurantA,
          product_category_id: categories.pizzas,
          name: 'Calabresa importada',
          price: 40,
        },
        {
          id: 900001,
          restaurant_id: restaurantA,
          product_category_id: categories.pizzas,
          name: 'Importada',
          price: 9,
        },
      ],
    });
    for (const instance of [one, two]) {
      assert.equal((await listedProduct(instance, products.calabresa))?.name, 'Calabresa importada');
      assert.equal((await productOn(instance, 900001)).json().name, 'Importada');
    }
    await sameAsRows();
  });

  await t.test('raw SQL writes are read at once: price, removal, category removal', async () => {
    await warm();
    await db.updateTable('products').set({ price: '45.00' }).where('id', '=', products.margherita).execute();
    assert.equal((await productOn(two, products.margherita)).json().price, '45.00');
    assert.equal((await listedProduct(one, products.margherita))?.price, '45.00');
    await warm();
    await db
      .updateTable('products')
      .set({ removed_at: new Date() })
      .where('id', '=', products.soda)
      .execute();
    for (const instance of [one, two]) {
      assert.equal(await listedProduct(instance, products.soda), undefined);
      assert.equal((await productOn(instance, products.soda)).statusCode, 404);
    }
    await warm();
    await db
      .updateTable('product_categories')
      .set({ removed_at: new Date() })
      .where('id', '=', categories.drinks)
      .execute();
    for (const instance of [one, two]) {
      assert.ok(!(await listOn(instance)).some((c) => c.id === categories.drinks));
    }
    await sameAsRows();
  });

  await t.test('a long run of writes, each read right after on alternating instances', async () => {
    for (let i = 1; i <= 20; i++) {
      const price = `${50 + i}.00`;
      await db.updateTable('products').set({ price }).where('id', '=', products.margherita).execute();
      const instance = i % 2 ? one : two;
      const read =
        i % 4 < 2
          ? (await productOn(instance, products.margherita)).json()
          : await listedProduct(instance, products.margherita);
      assert.equal(read?.price, price);
    }
  });

  await t.test('both routes do serve from memory: a write that skips the trigger stays unseen', async () => {
    await warm();
    // session_replication_role = replica silences triggers: the price changes, the version does not.
    await db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await trx
        .updateTable('products')
        .set({ price: '11.00' })
        .where('id', '=', products.margherita)
        .execute();
    });
    for (const instance of [one, two]) {
      assert.notEqual((await productOn(instance, products.margherita)).json().price, '11.00');
      assert.notEqual((await listedProduct(instance, products.margherita))?.price, '11.00');
    }
    await db
      .updateTable('products')
      .set({ updated_at: new Date() })
      .where('id', '=', products.margherita)
      .execute();
    for (const instance of [one, two]) {
      assert.equal((await productOn(instance, products.margherita)).json().price, '11.00');
      assert.equal((await listedProduct(instance, products.margherita))?.price, '11.00');
    }
  });

  await t.test('404 stays right with the listing held: removed, other restaurant, unknown', async () => {
    await warm();
    const removed = await productOn(one, products.removed);
    assert.equal(removed.statusCode, 404);
    assert.equal(removed.json().key, 'product_not_found');
    assert.equal((await productOn(one, products.otherRestaurant)).statusCode, 404);
    assert.equal((await productOn(two, 2_000_000_000)).statusCode, 404);
    // Not listed (its category is removed), yet readable alone, as before.
    const forgotten = await productOn(two, products.inRemovedCategory);
    assert.equal(forgotten.statusCode, 200);
    const url = `/oracle/${restaurantA}/products/${products.inRemovedCategory}`;
    assert.equal(forgotten.body, (await one.app.inject({ method: 'GET', url })).body);
  });

  await t.test("one restaurant's listing is never served for another", async () => {
    const b = await listingOn(one, auth.writeB);
    const a = await listingOn(one, auth.read);
    assert.notEqual(a.body, b.body);
    assert.deepEqual(
      b.json().map((c: { id: number }) => c.id),
      [categories.otherRestaurant],
    );
    // A partner holding both reads each by restaurant_id, alternating, with both listings held.
    for (let i = 0; i < 3; i++) {
      assert.equal((await listingOn(two, auth.partner, `?restaurant_id=${restaurantA}`)).body, a.body);
      assert.equal((await listingOn(two, auth.partner, `?restaurant_id=${restaurantB}`)).body, b.body);
    }
    assert.equal((await productOn(one, products.otherRestaurant, auth.read)).statusCode, 404);
    assert.equal((await productOn(one, products.margherita, auth.writeB)).statusCode, 404);
    await sameAsRows(restaurantB, auth.partner);
    await sameAsRows(restaurantA, auth.partner);
  });

  await t.test(
    'a read during an uncommitted write neither shows it nor keeps serving the old state after commit',
    { skip: database.kind === 'pglite' ? 'PGlite has one connection' : false },
    async () => {
      await warm();
      let commit!: () => void;
      const committed = new Promise<void>((resolve) => {
        commit = resolve;
      });
      const writing = db.transaction().execute(async (trx) => {
        await trx
          .updateTable('products')
          .set({ price: '99.00' })
          .where('id', '=', products.margherita)
          .execute();
        await committed;
      });
      await sql`select pg_sleep(0.05)`.execute(two.ctx.db);
      assert.notEqual((await productOn(two, products.margherita)).json().price, '99.00');
      assert.notEqual((await listedProduct(two, products.margherita))?.price, '99.00');
      commit();
      await writing;
      assert.equal((await productOn(two, products.margherita)).json().price, '99.00');
      assert.equal((await listedProduct(one, products.margherita))?.price, '99.00');
    },
  );
});
