// restaurants.cash_flow_version (migration 0009): every committed write to cash_flows, however it
// is made, changes the version of each restaurant it touched, and only theirs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { importData } from '../../../src/import/import.ts';
import { createTestDatabase } from '../../support/database.ts';
import { insertRestaurant } from '../../support/financial-world.ts';

async function versions(db: Db): Promise<[number, number]> {
  const rows = await db.selectFrom('restaurants').select(['id', 'cash_flow_version']).orderBy('id').execute();
  return [rows[0].cash_flow_version, rows[1].cash_flow_version];
}

const entry = (id: number, restaurant: number) =>
  sql`insert into cash_flows (id, restaurant_id, entry_type, value, due_date, is_earning)
    values (${id}, ${restaurant}, 'standalone', 1, '2026-01-01', true)`;

test('cash_flow_version follows every cash-flow write', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  await insertRestaurant(db, 1, 100);
  await insertRestaurant(db, 2, 200);
  assert.notEqual(...(await versions(db)), 'two restaurants start at different versions');

  /** Runs `write` and tells which restaurants' versions changed. */
  async function changed(write: () => Promise<unknown>): Promise<[boolean, boolean]> {
    const [a, b] = await versions(db);
    await write();
    const [a2, b2] = await versions(db);
    assert.ok(a2 >= a && b2 >= b, 'versions only grow');
    return [a2 !== a, b2 !== b];
  }
  const run = (statement: RawBuilder<unknown>) => () => statement.execute(db);

  await t.test('an insert, an update and a delete each change their restaurant only', async () => {
    assert.deepEqual(await changed(run(entry(1, 1))), [true, false]);
    assert.deepEqual(await changed(run(sql`update cash_flows set value = 2 where id = 1`)), [true, false]);
    assert.deepEqual(await changed(run(sql`delete from cash_flows where id = 1`)), [true, false]);
    assert.deepEqual(await changed(run(entry(2, 2))), [false, true]);
  });

  await t.test('a statement that writes no row changes nothing', async () => {
    assert.deepEqual(await changed(run(sql`update cash_flows set value = 3 where id = -1`)), [false, false]);
  });

  await t.test('an update moving an entry to another restaurant changes both', async () => {
    assert.deepEqual(await changed(run(sql`update cash_flows set restaurant_id = 1 where id = 2`)), [
      true,
      true,
    ]);
  });

  await t.test('a transaction of many writes changes each of its restaurants once, at commit', async () => {
    const drawn = async () =>
      (await sql<{ n: number }>`select last_value::int as n from cash_flow_versions`.execute(db)).rows[0].n;
    const [a] = await versions(db);
    const before = await drawn();
    const both = await changed(() =>
      db.transaction().execute(async (tx) => {
        for (let id = 10; id < 20; id++) await entry(id, 1).execute(tx);
        await sql`update cash_flows set value = 5 where id between 10 and 14`.execute(tx);
        await sql`delete from cash_flows where id = 19`.execute(tx);
        await entry(20, 2).execute(tx);
        assert.equal((await versions(tx))[0], a, 'not before the commit');
      }),
    );
    assert.deepEqual(both, [true, true]);
    assert.equal((await drawn()) - before, 2, 'one new version for each restaurant');
  });

  await t.test(
    'a rolled back transaction changes nothing; a rolled back savepoint does not hide later writes',
    async () => {
      const failing = () =>
        db.transaction().execute(async (tx) => {
          await entry(30, 1).execute(tx);
          throw new Error('rolled back');
        });
      assert.deepEqual(await changed(() => failing().catch(() => {})), [false, false]);
      const savepoint = () =>
        db.transaction().execute(async (tx) => {
          await sql`savepoint s`.execute(tx);
          await entry(31, 1).execute(tx);
          await sql`rollback to savepoint s`.execute(tx);
          await entry(32, 1).execute(tx);
        });
      assert.deepEqual(await changed(savepoint), [true, false]);
    },
  );

  await t.test('the importer changes the versions of the restaurants it writes cash flows for', async () => {
    const file = {
      cash_flows: [
        {
          id: 40,
          restaurant_id: 2,
          entry_type: 'title',
          value: 3,
          due_date: '2026-01-05',
          is_earning: false,
          items: [{ id: 41, value: 3 }],
        },
      ],
    };
    assert.deepEqual(await changed(() => importData(db, file)), [false, true]);
    assert.deepEqual(
      await changed(() =>
        importData(db, { cash_flows: [{ ...file.cash_flows[0], items: [{ id: 42, value: 3 }] }] }),
      ),
      [false, true],
    );
  });

  await t.test('a write to a table whose names a page shows changes its restaurant', async () => {
    for (const table of ['suppliers', 'bank_accounts', 'payment_methods', 'cost_centres']) {
      const rename = sql`update ${sql.table(table)} set name = name || '.' where restaurant_id = 2`;
      assert.deepEqual(await changed(run(rename)), [false, true], table);
    }
  });

  await t.test('a truncate changes every restaurant', async () => {
    assert.deepEqual(await changed(run(sql`truncate cash_flows`)), [true, true]);
  });
});
