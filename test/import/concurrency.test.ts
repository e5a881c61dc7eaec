// An import racing another writer of the same product on PostgreSQL: it reads the product it
// compares with under the row lock, so an edit that commits while the import runs is neither
// overwritten unseen nor given back an earlier updated_at, and the import's change of it is in the
// history and in menu.updated.
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { type Db, openDatabase } from '../../src/db/database.ts';
import { importData } from '../../src/import/import.ts';
import { lockDestinations, lockProducts } from '../../src/modules/catalog/product-repository.ts';
import { createTestDatabase, testDatabaseUrl, testPooler } from '../support/database.ts';
import { FISCAL_KEY, load, world } from './world.ts';

/** The race tests need PostgreSQL: PGlite runs one transaction at a time. Every wait is bounded. */
const RACE = {
  skip: !testDatabaseUrl && 'needs PostgreSQL (DATABASE_URL): PGlite runs one transaction at a time',
  timeout: 60_000,
};
/**
 * How long a race test waits for an import to reach a lock: three test files at a time on a
 * loaded 2-core CI machine can take seconds to get there. Only a failure waits it out.
 */
const WAIT_MS = 30_000;

/** A database of its own holding the world file, once `extend` has added to it; the file is returned too. */
async function raceDatabase(t: TestContext, extend: (file: ReturnType<typeof world>) => void = () => {}) {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const file = world();
  extend(file);
  await load(database.db, file);
  return { database, db: database.db, file };
}

/** The world with category 101, Massas, of restaurant 1 (no products). */
const withMassas = (file: ReturnType<typeof world>) => {
  file.product_categories.push({ id: 101, restaurant_id: 1, brand_id: 10, name: 'Massas' });
};

/** A connection of its own, to hold a transaction open while an import runs. */
async function connection(t: TestContext, url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  client.on('error', () => {});
  t.after(() => client.end());
  return client;
}

test('an import that waits for an edit of a product compares with the edited product', RACE, async (t) => {
  const { database, db } = await raceDatabase(t);
  const editor = await connection(t, database.url);
  const seq = async () =>
    (await sql<{ seq: string }>`select max(seq) as seq from events`.execute(db)).rows[0].seq;
  const eventsBefore = await seq();

  // The edit holds product 1000 while the import of the unchanged file starts.
  await editor.query('begin');
  const { rows } = await editor.query(
    `update products set name = 'Margherita especial', updated_at = now() + interval '1 hour'
     where id = 1000 returning to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at`,
  );
  const edited = rows[0].at as string;
  const importing = load(db, world());
  try {
    await untilWaiting(editor, 1, 'the import never waited for the edit');
    await editor.query('commit');
  } finally {
    // Whatever failed, the edit ends, so that the import (and closing the database) never waits for it.
    await editor.query('rollback').catch(() => {});
  }
  await importing;

  const product = (
    await sql<{ name: string; updated_at: string }>`select name,
      to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as updated_at
      from products where id = 1000`.execute(db)
  ).rows[0];
  assert.equal(product.name, 'Margherita');
  assert.ok(product.updated_at > edited, `updated_at ${product.updated_at} moved back from ${edited}`);
  const history = await sql<{ changes: unknown }>`select changes from product_changes
    where product_id = 1000 and operation = 'edit'`.execute(db);
  assert.deepEqual(
    history.rows.map((r) => r.changes),
    [[{ field: 'name', from: 'Margherita especial', to: 'Margherita' }]],
  );
  const events = await sql<{ type: string; restaurant_id: number }>`select type, restaurant_id from events
    where seq > ${eventsBefore ?? 0}`.execute(db);
  assert.deepEqual(events.rows, [{ type: 'menu.updated', restaurant_id: 1 }]);
});

test(
  'an import that changes a category does not deadlock with a move of a product into it',
  RACE,
  async (t) => {
    const { database, db } = await raceDatabase(t, withMassas);
    // The API's side: its own connection, taking the product routes' locks with their own functions.
    const api = await openDatabase({ databaseUrl: database.url, pooler: testPooler });
    t.after(() => api.close());
    // The import changes category 101 and moves product 1000 into it; it also lists product 1001.
    const changed = world();
    changed.product_categories.push({ id: 101, restaurant_id: 1, brand_id: 10, name: 'Massas frescas' });
    changed.products[0].product_category_id = 101;

    let importing: Promise<unknown> | undefined;
    // A move of product 1001 into category 101 (PUT /v1/products/1001): the product's lock first,
    // then, once the import waits for that product, the category's. lock_timeout bounds each wait.
    await api.db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '10s'`.execute(trx);
      assert.equal((await lockProducts(trx, 1, [1001])).length, 1);
      importing = load(db, changed);
      importing.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
      await untilWaiting(trx, 1, 'the import never waited for the product');
      // Deadlock detection runs after deadlock_timeout (1 s): the inversion, if there, is found here.
      const destinations = await lockDestinations(trx, 1, [101]);
      assert.ok(destinations.has(101), 'the category was not locked');
      await sql`update products set product_category_id = 101 where id = 1001`.execute(trx);
    });
    await importing;

    const rows = await sql<{ id: number; product_category_id: number }>`select id, product_category_id
    from products where id in (1000, 1001) order by id`.execute(db);
    assert.deepEqual(rows.rows, [
      { id: 1000, product_category_id: 101 },
      { id: 1001, product_category_id: 100 },
    ]);
    const category = await sql<{ name: string }>`select name from product_categories where id = 101`.execute(
      db,
    );
    assert.equal(category.rows[0].name, 'Massas frescas');
  },
);

/**
 * Runs two imports while `holder` holds a row (`lock`): the first until it waits for that row,
 * then the second until it waits too; then the row is released (whatever failed, so that the
 * imports and closing the database never wait for it) and both must succeed.
 */
async function bothImport(
  db: Db,
  holder: pg.Client,
  lock: string,
  files: [unknown, unknown],
  firstWaits: string,
) {
  let imports: Promise<PromiseSettledResult<unknown>[]> | undefined;
  await holder.query('begin');
  try {
    await holder.query(lock);
    const importing = [load(db, files[0])];
    await untilWaiting(holder, 1, firstWaits);
    importing.push(load(db, files[1]));
    imports = Promise.allSettled(importing);
    await untilWaiting(holder, 2, 'the second import never waited');
    await holder.query('commit');
  } finally {
    await holder.query('rollback').catch(() => {});
  }
  const [a, b] = await imports!;
  assert.equal(a.status, 'fulfilled', `the first import failed: ${a.status === 'rejected' && a.reason}`);
  assert.equal(b.status, 'fulfilled', `the second import failed: ${b.status === 'rejected' && b.reason}`);
}

/**
 * Waits (at most WAIT_MS) until `count` backends of the database wait for a lock, read on `client`
 * (a connection or a Kysely transaction).
 */
async function untilWaiting(client: pg.Client | Db, count: number, what: string) {
  const read = async (text: string) =>
    client instanceof pg.Client
      ? (await client.query(text)).rows
      : (await sql.raw(text).execute(client)).rows;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    // Within a transaction pg_stat_activity is read once and kept: cleared, it is read anew.
    await read('select pg_stat_clear_snapshot()');
    const waiting = await read(
      `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (waiting.length >= count) return;
    assert.ok(Date.now() < deadline, what);
    await sleep(20);
  }
}

test('two imports that change the same categories in opposite orders do not deadlock', RACE, async (t) => {
  const category = (id: number, name: string) => ({ id, restaurant_id: 1, brand_id: 10, name });
  // Categories without products: the imports' product locks (taken first, in id order) do not
  // order them before they reach the categories.
  const { database, db } = await raceDatabase(t, (file) => {
    file.product_categories.push(category(101, 'Massas'), category(102, 'Saladas'), category(103, 'Doces'));
  });
  const holder = await connection(t, database.url);

  // Written in file order, first locks 101 and then waits for 103 (held); second, once first
  // waits, locks 102 and waits for 101. Released, first would wait for 102: a deadlock.
  const first = { product_categories: [category(101, 'A'), category(103, 'A'), category(102, 'A')] };
  const second = { product_categories: [category(102, 'B'), category(101, 'B')] };
  await bothImport(
    db,
    holder,
    'select id from product_categories where id = 103 for no key update',
    [first, second],
    'the first import never waited for category 103',
  );
  const names = await sql<{ id: number; name: string }>`select id, name from product_categories
    where id in (101, 102, 103) order by id`.execute(db);
  assert.deepEqual(names.rows, [
    { id: 101, name: 'B' },
    { id: 102, name: 'B' },
    { id: 103, name: 'A' },
  ]);
});

test(
  "an import's changed brands and categories do not block other writers' foreign-key checks",
  RACE,
  async (t) => {
    const { database, db, file } = await raceDatabase(t, (file) => {
      file.brands.push({ id: 11, restaurant_id: 1, name: 'Bella Massas' });
      file.product_categories.push(
        { id: 101, restaurant_id: 1, brand_id: 11, name: 'Massas' },
        { id: 102, restaurant_id: 1, brand_id: 10, name: 'Saladas' },
      );
      file.products.push({
        id: 1003,
        restaurant_id: 1,
        product_category_id: 102,
        name: 'Caprese',
        price: 30,
      });
    });
    const api = await openDatabase({ databaseUrl: database.url, pooler: testPooler });
    t.after(() => api.close());

    // The import changes brand 11 and category 100, and stays open while the API writes. The API's
    // commit comes after the import's: its catalog_version bump updates restaurant 1's row, which the
    // import locks at the end of its writes (the rule of the restaurants' lock order) until it commits.
    const changes = {
      brands: [{ id: 11, restaurant_id: 1, name: 'Bella Massas Frescas' }],
      product_categories: [{ ...file.product_categories[0], name: 'Pizzas artesanais' }],
    };
    let writing: Promise<void> | undefined;
    await db.transaction().execute(async (trx) => {
      await importData(trx, changes, { fiscalTokenKey: FISCAL_KEY });
      let written!: () => void;
      const statements = new Promise<void>((resolve) => {
        written = resolve;
      });
      // lock_timeout bounds each wait: a lock the import holds too strongly fails the write.
      writing = api.db.transaction().execute(async (other) => {
        await sql`set local lock_timeout = '2s'`.execute(other);
        // A move of product 1003 into category 101 (PUT /v1/products/1003): it takes the category's
        // brand, 11, whose foreign-key check locks the brand FOR KEY SHARE.
        assert.equal((await lockProducts(other, 1, [1003])).length, 1);
        assert.equal((await lockDestinations(other, 1, [101])).get(101)?.brand_id, 11);
        await sql`update products set product_category_id = 101, brand_id = 11 where id = 1003`.execute(
          other,
        );
        // What a foreign-key check of category 100 takes (a writer that references it without
        // locking it: another import's new product in it, psql).
        await sql`select id from product_categories where id = 100 for key share`.execute(other);
        written();
      });
      // The import commits once the API's statements ran, or fails with them.
      await Promise.race([statements, writing]);
    });
    await writing;

    const rows = await sql<{
      product_category_id: number;
      brand_id: number;
    }>`select product_category_id, brand_id
    from products where id = 1003`.execute(db);
    assert.deepEqual(rows.rows, [{ product_category_id: 101, brand_id: 11 }]);
    const names = await sql<{ name: string }>`select name from brands where id = 11
    union all select name from product_categories where id = 100`.execute(db);
    assert.deepEqual(
      names.rows.map((r) => r.name),
      ['Bella Massas Frescas', 'Pizzas artesanais'],
    );
  },
);

test(
  'two imports that write two restaurants in opposite orders do not deadlock at commit',
  RACE,
  async (t) => {
    // Categories without products, so that the imports' product locks do not order them.
    const { database, db, file } = await raceDatabase(t, (file) => {
      file.product_categories.push(
        { id: 101, restaurant_id: 1, brand_id: 10, name: 'Massas' },
        { id: 201, restaurant_id: 2, brand_id: 20, name: 'Caldos' },
      );
    });
    const holder = await connection(t, database.url);

    // No row in common: first writes restaurant 2 (a category) then restaurant 1 (a supplier),
    // second the reverse. Their version bumps update the restaurants' rows at commit; with restaurant
    // 2 held, first waits for it, then second (holding restaurant 1 if it bumps in its own order).
    const first = {
      product_categories: [{ ...file.product_categories[3], name: 'Caldos A' }],
      suppliers: [{ ...file.suppliers[0], name: 'Distribuidora A' }],
    };
    const second = {
      product_categories: [{ ...file.product_categories[2], name: 'Massas B' }],
      suppliers: [{ ...file.suppliers[1], name: 'Pescados B' }],
    };
    await bothImport(
      db,
      holder,
      'select id from restaurants where id = 2 for no key update',
      [first, second],
      'the first import never waited for restaurant 2',
    );
    const names = await sql<{ name: string }>`select name from product_categories where id in (101, 201)
    union all select name from suppliers where id in (50, 51)`.execute(db);
    assert.deepEqual(names.rows.map((r) => r.name).sort(), [
      'Caldos A',
      'Distribuidora A',
      'Massas B',
      'Pescados B',
    ]);
  },
);

test(
  'an import that renames a restaurant does not deadlock with a write of that restaurant',
  RACE,
  async (t) => {
    const { database, db, file } = await raceDatabase(t, withMassas);
    const writer = await connection(t, database.url);

    // A write of restaurant 1 (a category's, as PUT would) holds category 101 while the import,
    // which renames restaurant 1 and changes that category, waits for it. The write's commit bumps
    // catalog_version: it updates restaurant 1's row, which the import must not hold meanwhile.
    const changes = {
      restaurants: [{ ...file.restaurants[0], name: 'Cantina Bella Nova' }],
      product_categories: [{ ...file.product_categories[2], name: 'Massas frescas' }],
    };
    let importing: Promise<unknown> | undefined;
    await writer.query('begin');
    try {
      await writer.query(`update product_categories set name = 'Massas da casa' where id = 101`);
      importing = load(db, changes);
      importing.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
      await untilWaiting(writer, 1, 'the import never waited for category 101');
      // Deadlock detection runs after deadlock_timeout (1 s): the inversion, if there, fails here.
      await writer.query('commit');
    } finally {
      await writer.query('rollback').catch(() => {});
    }
    await importing;

    const restaurant = await sql<{ name: string }>`select name from restaurants where id = 1`.execute(db);
    assert.equal(restaurant.rows[0].name, 'Cantina Bella Nova');
    const category = await sql<{ name: string }>`select name from product_categories where id = 101`.execute(
      db,
    );
    assert.equal(category.rows[0].name, 'Massas frescas');
  },
);
