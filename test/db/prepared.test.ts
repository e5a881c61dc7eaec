import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.ts';
import { prepared } from '../../src/db/prepared.ts';
import { readRestaurantState } from '../../src/db/restaurant-state.ts';
import { createTestDatabase, testDatabaseUrl } from '../support/database.ts';

const restaurantName = prepared<{ name: string }>('select name from restaurants where id = $1');

test('prepared statements', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { id } = await database.db
    .insertInto('restaurants')
    .values({ name: 'Cantina' })
    .returning('id')
    .executeTakeFirstOrThrow();

  await t.test('answer with their parameters, run after run', async () => {
    for (let run = 0; run < 3; run++) {
      assert.deepEqual((await restaurantName(database.db, [id])).rows, [{ name: 'Cantina' }]);
      assert.deepEqual((await restaurantName(database.db, [id + 1])).rows, []);
    }
  });

  await t.test('see a write made after they were prepared', async () => {
    await sql`update restaurants set name = 'Cantina Nova' where id = ${id}`.execute(database.db);
    assert.deepEqual((await restaurantName(database.db, [id])).rows, [{ name: 'Cantina Nova' }]);
    assert.equal((await readRestaurantState(database.db, id))?.timezone, 'America/Sao_Paulo');
  });

  await t.test(
    'on PostgreSQL, are named statements of the connection; other statements are not',
    { skip: testDatabaseUrl ? false : 'PostgreSQL only (DATABASE_URL)' },
    async () => {
      // One connection, so the statements and the catalogue read below share it.
      const single = await openDatabase({ databaseUrl: database.url, poolSize: 1 });
      t.after(() => single.close());
      await restaurantName(single.db, [id]);
      await restaurantName(single.db, [id]);
      await sql`select name from restaurants where id = ${id} and name <> ''`.execute(single.db);
      const { rows } = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
        single.db,
      );
      const statements = rows.map((r) => r.statement);
      assert.ok(statements.includes('select name from restaurants where id = $1'), statements.join('\n'));
      assert.ok(!statements.some((s) => s.includes("name <> ''")), 'a built query stays unnamed');
      assert.equal(statements.filter((s) => s.startsWith('select name from restaurants where id')).length, 1);
    },
  );
});
