// An import emits menu.updated only for the restaurants whose menu answer it changes, and writes
// only the catalog rows that differ from the stored ones: a file imported again as it is stored
// leaves catalog_version, and with it the menu's caches and ETags, as they are.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { CATALOG_TABLES, load, snapshot, world } from '../../import/world.ts';
import { createTestDatabase } from '../../support/database.ts';

type File = ReturnType<typeof world>;

const BOTH = { channels: ['in_store', 'delivery'], source: 'import' };

/** The world with `change` made to it. */
function changed(change: (file: File) => void): File {
  const file = world();
  change(file);
  return file;
}

test('menu.updated and catalog_version of imports', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { db } = database;
  const events = async () =>
    (
      await sql<{ restaurant_id: number; type: string; data: Record<string, any> }>`
        select restaurant_id, type, data from events order by seq`.execute(db)
    ).rows;
  const versions = async () =>
    new Map(
      (await db.selectFrom('restaurants').select(['id', 'catalog_version']).execute()).map((r) => [
        r.id,
        r.catalog_version,
      ]),
    );
  const historyEntries = async () =>
    (await sql<{ n: number }>`select count(*)::int as n from product_changes`.execute(db)).rows[0].n;
  /** Imports `file`: the events it emitted, its menu.updated, the restaurants whose catalog_version moved. */
  const importing = async (file: File) => {
    const seen = (await events()).length;
    const before = await versions();
    await load(db, file);
    const after = await versions();
    const emitted = (await events()).slice(seen);
    return {
      emitted,
      menus: emitted.filter((e) => e.type === 'menu.updated'),
      moved: [...after].filter(([id, version]) => before.get(id) !== version).map(([id]) => id),
    };
  };
  /** Imports `file`, which changes the menu of `restaurant` alone, on both channels. */
  const changesMenuOf = async (restaurant: number, file: File, message?: string) => {
    const { menus, moved } = await importing(file);
    assert.deepEqual(menus, [{ restaurant_id: restaurant, type: 'menu.updated', data: BOTH }], message);
    assert.deepEqual(moved, [restaurant], message);
  };
  /** Imports `file`, which changes no menu and moves no catalog_version. */
  const changesNoMenu = async (file: File, message?: string) => {
    const { menus, moved } = await importing(file);
    assert.deepEqual({ menus, moved }, { menus: [], moved: [] }, message);
  };
  // Each case starts from the world as stored, so that its file changes only what it says.
  const reset = () => load(db, world());

  await reset();

  await t.test(
    'an identical re-import emits no event, records no product history, writes no catalog row and leaves catalog_version',
    async () => {
      const stored = await snapshot(db, CATALOG_TABLES);
      const entries = await historyEntries();
      const { emitted, moved } = await importing(world());
      assert.deepEqual(emitted, []);
      assert.deepEqual(moved, []);
      assert.equal(await historyEntries(), entries);
      assert.deepEqual(await snapshot(db, CATALOG_TABLES), stored, 'no row written again, instants included');
    },
  );

  await t.test(
    'a changed price emits exactly one menu.updated, for its restaurant: the other restaurant of the file gets none',
    async () => {
      await reset();
      await changesMenuOf(
        1,
        changed((f) => (f.products[0].price = 47.5)),
      );
    },
  );

  await t.test(
    "a menu.updated of an import names both channels, whichever product field changed: each channel's menu shows every field",
    async () => {
      await reset();
      for (const change of [
        (f: File) => (f.products[0].delivery_price = '49.90'),
        (f: File) => (f.products[1].available = false),
        (f: File) => (f.products[1].available_in_delivery = false),
      ]) {
        const { menus } = await importing(changed(change));
        assert.deepEqual(
          menus.map((e) => e.data),
          [BOTH],
        );
      }
    },
  );

  await t.test(
    'a changed add-on link alone emits menu.updated, and so do the same links in another order',
    async () => {
      await reset();
      const linked = (links: number[]) =>
        changed((f) => {
          f.complement_categories.push({ id: 302, restaurant_id: 1, name: 'Extras', options: [] });
          f.products[0].complement_category_ids = links;
        });
      await importing(linked([300]));
      for (const links of [[300, 302], [302, 300], [302]]) {
        await changesMenuOf(1, linked(links), `links ${links}`);
        await changesNoMenu(linked(links), `links ${links} again`);
      }
      const stored = await db
        .selectFrom('product_complement_categories')
        .select('complement_category_id')
        .where('product_id', '=', 1000)
        .execute();
      assert.deepEqual(stored, [{ complement_category_id: 302 }]);
    },
  );

  await t.test('a changed combo item order alone emits menu.updated', async () => {
    await reset();
    await changesMenuOf(
      1,
      changed((f) => (f.products[2].combo = { min_items: 2, product_ids: [1001, 1000] })),
    );
  });

  await t.test(
    'a changed schedule alone emits menu.updated; the same windows written otherwise do not',
    async () => {
      await reset();
      const lunch = (window: Record<string, unknown>) => changed((f) => (f.products[3].schedules = [window]));
      await changesMenuOf(2, lunch({ weekday: 1, start: '11:00', end: '15:00' }));
      await changesNoMenu(lunch({ end: '15:00', start: '11:00', weekday: 1 }));
    },
  );

  await t.test(
    'a changed category, add-on group or option emits menu.updated for its restaurant only',
    async () => {
      await reset();
      const changes: ((f: File) => void)[] = [
        (f) => (f.product_categories[1].position = 3),
        (f) => (f.complement_categories[1].max = 1),
        (f) => (f.complement_categories[1].options[0].price = '1.50'),
        (f) => f.complement_categories[1].options.push({ id: 3012, name: 'Pimenta' }),
        (f) => (f.complement_categories[1].options = []),
      ];
      const file = world();
      for (const change of changes) {
        change(file);
        await changesMenuOf(2, structuredClone(file), String(change));
      }
    },
  );

  await t.test(
    'a fiscal attribute emits menu.updated (include_fiscal_info shows it); what no menu shows, a restaurant name or a category brand, does not',
    async () => {
      await reset();
      const entries = await historyEntries();
      const file = changed((f) => (f.products[0].fiscal.ncm = '02013001'));
      const fiscal = await importing(file);
      assert.deepEqual(fiscal.menus, [{ restaurant_id: 1, type: 'menu.updated', data: BOTH }]);
      assert.equal(await historyEntries(), entries + 1, 'the product history records the fiscal change');
      assert.deepEqual(fiscal.moved, [1], 'the product routes show it');

      file.restaurants[1].name = 'Sabor do Norte II';
      await changesNoMenu(file);
      file.brands.push({ id: 21, restaurant_id: 2, name: 'Norte Grill' });
      file.product_categories[1].brand_id = 21;
      const rebranded = await importing(file);
      assert.deepEqual(rebranded.menus, []);
      const product = await db
        .selectFrom('products')
        .select('brand_id')
        .where('id', '=', 2000)
        .executeTakeFirst();
      assert.equal(product?.brand_id, 21, 'the products follow their category');
    },
  );

  await t.test(
    "a changed restaurant time zone emits menu.updated: the menu's schedules are read in it",
    async () => {
      await reset();
      // Its catalog_version stays: the menu's ETag holds the time zone itself (menu/service.ts).
      const { menus } = await importing(changed((f) => (f.restaurants[1].timezone = 'America/Belem')));
      assert.deepEqual(menus, [{ restaurant_id: 2, type: 'menu.updated', data: BOTH }]);
    },
  );
});
