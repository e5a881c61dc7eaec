// The edges of the kept NF-e list (list-cache.ts): a list over the budget, a write to another
// restaurant, a write rolled back. list-cache.test.ts covers the writes themselves.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { readRestaurantState, restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createNfeListReader } from '../../../src/modules/nfe/list-cache.ts';
import { parseNfeListQuery } from '../../../src/modules/nfe/list-query.ts';
import { renderReceivedNfeList } from '../../../src/modules/nfe/nfe-service.ts';
import { createTestDatabase } from '../../support/database.ts';
import { insertBrand, insertNote, insertRestaurant } from '../../support/nfe-world.ts';
import { listsFromMemory } from './list-metrics.ts';

const JANUARY = { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-31T23:59:59Z' };

test('the kept NF-e list at its edges', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  const main = await insertRestaurant(db, 'Main');
  const other = await insertRestaurant(db, 'Other');
  for (const restaurant of [main, other]) {
    const brand = await insertBrand(db, restaurant, 'test-fiscal-token-key-of-at-least-32-chars', {
      isDefault: true,
    });
    for (let i = 0; i < 3; i++) await insertNote(db, restaurant, { brand_id: brand });
  }
  const readNfeVersion = async (db: typeof database.db, restaurant: number) =>
    (await readRestaurantState(db, restaurant))?.nfe_version;
  const fresh = async (restaurant: number) =>
    (await renderReceivedNfeList(db, restaurant, parseNfeListQuery(JANUARY))).toString();

  await t.test('a list larger than the budget is rendered on every read and follows writes', async () => {
    const read = createNfeListReader(db, 1024);
    const before = await listsFromMemory();
    const { body } = await read(restaurantOf(db, main), JANUARY);
    assert.ok(body.length > 1024, 'the list is over the budget');
    assert.equal(body.toString(), await fresh(main));
    assert.equal((await read(restaurantOf(db, main), JANUARY)).body.toString(), await fresh(main));
    await sql`update nfe_received set issuer_name = 'Renomeada' where restaurant_id = ${main}`.execute(db);
    assert.equal((await read(restaurantOf(db, main), JANUARY)).body.toString(), await fresh(main));
    assert.match((await read(restaurantOf(db, main), JANUARY)).body.toString(), /Renomeada/);
    assert.equal(await listsFromMemory(), before, 'nothing was served from memory');
  });

  await t.test("a write to one restaurant keeps the other's lists", async () => {
    const read = createNfeListReader(db);
    await read(restaurantOf(db, main), JANUARY);
    await read(restaurantOf(db, other), JANUARY);
    const before = await listsFromMemory();
    await insertNote(db, main, { issuer_name: 'Nova' });
    assert.equal((await read(restaurantOf(db, other), JANUARY)).body.toString(), await fresh(other));
    assert.equal((await listsFromMemory()) - before, 1, "the other restaurant's list was kept");
    const mainBody = (await read(restaurantOf(db, main), JANUARY)).body.toString();
    assert.equal(mainBody, await fresh(main));
    assert.match(mainBody, /Nova/);
    assert.equal((await listsFromMemory()) - before, 1, "the written restaurant's list was rendered again");
  });

  await t.test('a rolled back write leaves nfe_version; a committed one moves it once', async () => {
    const version = await readNfeVersion(db, main);
    assert.equal(typeof version, 'number');
    await assert.rejects(
      db.transaction().execute(async (tx) => {
        await insertNote(tx, main, { issuer_name: 'Desfeita' });
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(await readNfeVersion(db, main), version);
    const otherVersion = await readNfeVersion(db, other);
    const last = async () =>
      Number((await sql<{ n: string }>`select last_value as n from nfe_versions`.execute(db)).rows[0].n);
    const before = await last();
    await db.transaction().execute(async (tx) => {
      for (let i = 0; i < 3; i++) await insertNote(tx, main);
      await sql`update brands set name = 'Outro nome' where restaurant_id = ${main}`.execute(tx);
    });
    assert.equal(await last(), before + 1, 'one bump for four writes');
    assert.equal(await readNfeVersion(db, main), before + 1);
    assert.equal(await readNfeVersion(db, other), otherVersion);
  });
});
