import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { up } from '../../src/db/migrations/0019-webhook-previous-secrets.ts';
import { IMPORTED_TABLES } from '../import/world.ts';
import { createTestDatabase, testDatabaseUrl, testPooler } from '../support/database.ts';

// Every table of the data model: what the importer writes, plus the change log and the tokens.
const TABLES = [...IMPORTED_TABLES, 'product_changes', 'access_tokens'];

/** A product row with every required column; `overrides` sets what a test is about. */
function productRow(overrides: Record<string, unknown>) {
  const now = new Date();
  return {
    restaurant_id: 1,
    product_category_id: 1,
    brand_id: null,
    name: 'P',
    description: null,
    price: 1,
    combo_min_items: null,
    schedules: '[]',
    fiscal_group_id: null,
    created_at: now,
    updated_at: now,
    removed_at: null,
    ...overrides,
  } as never;
}

test('migrations create the whole data model and are idempotent', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { rows } = await sql<{ table_name: string }>`
    select table_name from information_schema.tables where table_schema = 'public'`.execute(database.db);
  const names = new Set(rows.map((r) => r.table_name));
  for (const table of TABLES) assert.ok(names.has(table), `table ${table} exists`);
  assert.deepEqual(await migrate(database.db), [], 'a second run applies nothing');
});

test('money is numeric(12,2) and versions keep milliseconds', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { rows } = await sql<{
    column_name: string;
    data_type: string;
    numeric_precision: number;
    numeric_scale: number;
  }>`
    select column_name, data_type, numeric_precision, numeric_scale from information_schema.columns
    where table_name = 'products' and column_name in ('price', 'price_promotion', 'delivery_price', 'delivery_price_promotion')`.execute(
    database.db,
  );
  assert.equal(rows.length, 4);
  for (const r of rows)
    assert.deepEqual([r.data_type, r.numeric_precision, r.numeric_scale], ['numeric', 12, 2]);
  const at = new Date('2026-01-10T12:00:00.123Z');
  await database.db.insertInto('restaurants').values({ id: 1, name: 'R' }).execute();
  await database.db
    .insertInto('product_categories')
    .values({ id: 1, restaurant_id: 1, brand_id: null, name: 'C', schedules: '[]', removed_at: null })
    .execute();
  await database.db
    .insertInto('products')
    .values(productRow({ id: 1, created_at: at, updated_at: at }))
    .execute();
  const row = await database.db
    .selectFrom('products')
    .select(['updated_at', 'price'])
    .executeTakeFirstOrThrow();
  assert.equal(row.updated_at.toISOString(), '2026-01-10T12:00:00.123Z');
  assert.equal(row.price, '1.00');
});

test('a product cannot point to a category of another restaurant', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  await db
    .insertInto('restaurants')
    .values([
      { id: 1, name: 'A' },
      { id: 2, name: 'B' },
    ])
    .execute();
  await db
    .insertInto('product_categories')
    .values({ id: 20, restaurant_id: 2, brand_id: null, name: 'B cat', schedules: '[]', removed_at: null })
    .execute();
  await assert.rejects(
    db
      .insertInto('products')
      .values(productRow({ product_category_id: 20 }))
      .execute(),
  );
});

test('the migration lock lives in the migrating transaction, so a transaction pooler cannot strand it', {
  skip: testPooler ? false : 'through a transaction pooler only (DATABASE_POOLER=transaction)',
}, async (t) => {
  // An empty database, reached through the pooler as an instance reaches it.
  const name = `comanda_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(testDatabaseUrl as string);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), pooler: testPooler, poolSize: 2 });
  // Another client of the pooler: as soon as the migrator has taken its lock it begins a
  // transaction, on the server connection the lock statement has just given back.
  const other = new pg.Client({ connectionString: url.toString() });
  await other.connect();
  t.after(async () => {
    await other.end();
    await database.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  const locks = new Set<unknown>();
  let held = false;
  const db = database.db.withPlugin({
    transformQuery({ node, queryId }) {
      if (node.kind === 'RawNode' && node.sqlFragments.join('').includes('pg_advisory')) locks.add(queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (locks.has(queryId) && !held) {
        held = true;
        await other.query('begin');
        await other.query('select 1');
      }
      return result;
    },
  });
  assert.ok((await migrate(db)).length > 0);
  await other.query('commit');
  const { rows } = await admin.query(
    `select pid from pg_locks where locktype = 'advisory'
       and database = (select oid from pg_database where datname = $1)`,
    [name],
  );
  assert.deepEqual(rows, [], 'no advisory lock outlives the migration');
});

test('0019 moves the previous webhook secret into previous_secrets while it still signs', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { db } = database;
  // The table as 0018 left it: one previous secret in a column of its own.
  await sql`alter table webhook_endpoints drop column previous_secrets`.execute(db);
  await db.insertInto('restaurants').values({ id: 1, name: 'R' }).execute();
  const live = new Date(Date.now() + 3_600_000);
  for (const [id, previous, until] of [
    [1, 'v1:live', live],
    [2, 'v1:expired', new Date(Date.now() - 1000)],
    [3, null, null],
  ] as const) {
    await sql`insert into webhook_endpoints (id, restaurant_id, url, events, secret_encrypted,
      previous_secret_encrypted, previous_secret_expires_at)
      values (${id}, 1, 'https://example.com', '{}', 'v1:current', ${previous}, ${until})`.execute(db);
  }
  await up(db as never);
  const rows = await db
    .selectFrom('webhook_endpoints')
    .select(['id', 'previous_secrets', 'previous_secret_expires_at'])
    .orderBy('id')
    .execute();
  assert.deepEqual(
    rows.map((row) => [row.id, row.previous_secrets]),
    [
      [1, [{ secret_encrypted: 'v1:live', expires_at: live.toISOString() }]],
      [2, []],
      [3, []],
    ],
  );
  assert.equal(rows[0].previous_secret_expires_at?.toISOString(), live.toISOString());
  // Kept for instances of the release before, during a rolling restart.
  const kept = await db
    .selectFrom('webhook_endpoints')
    .select('previous_secret_encrypted')
    .orderBy('id')
    .execute();
  assert.deepEqual(
    kept.map((row) => row.previous_secret_encrypted),
    ['v1:live', 'v1:expired', null],
  );
});
