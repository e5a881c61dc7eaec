// One transaction: all of a file or nothing, also when the database itself fails late; re-import
// replaces records by id; sequences move past imported ids; secrets never stored in plain text.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { importData } from '../../src/import/import.ts';
import { decryptSecret } from '../../src/lib/encryption.ts';
import { createTestDatabase } from '../support/database.ts';
import { assertRejected, FISCAL_KEY, load, snapshot, world, worldWith } from './world.ts';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

test('import transaction', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { db } = database;
  const first = await load(db, world());

  await t.test('an import reports the rows it wrote per kind', () => {
    assert.deepEqual(first, {
      restaurants: 2,
      brands: 2,
      product_categories: 2,
      complement_categories: 2,
      complement_options: 2,
      products: 4,
      suppliers: 2,
      bank_accounts: 1,
      payment_methods: 1,
      cost_centres: 2,
      cash_flows: 3,
      cash_flow_items: 4,
      nfe_received: 1,
      api_keys: 1,
      oauth_clients: 1,
    });
  });

  await t.test('a bad record at the end of a file leaves the database unchanged', async () => {
    const file = worldWith((f) => {
      f.suppliers.push({ id: 52, restaurant_id: 1, name: 'Nova' });
      f.oauth_clients[0].scopes = ['menu:write'];
    });
    await assertRejected(
      db,
      file,
      'oauth_clients[0].scopes[0]: must be one of products:read, products:write, menu:read, financial:read, nfe-received:read, webhooks:read, webhooks:write',
    );
  });

  await t.test('a database failure while writing the last collection rolls back everything', async () => {
    await sql`create function refuse_note() returns trigger language plpgsql as $$
      begin raise exception 'refused by the test trigger'; end $$`.execute(db);
    await sql`create trigger refuse_note before insert on nfe_received for each row
      when (new.id = 7999) execute function refuse_note()`.execute(db);
    const before = await snapshot(db);
    const file = worldWith((f) => {
      f.products[0].name = 'Changed';
      f.nfe_received.push({ ...f.nfe_received[0], id: 7999 });
    });
    await assert.rejects(load(db, file), /refused by the test trigger/);
    assert.deepEqual(await snapshot(db), before);
    await sql`drop trigger refuse_note on nfe_received`.execute(db);
  });

  await t.test('re-importing the same file gives the same counts and writes nothing', async () => {
    const before = await snapshot(db);
    assert.deepEqual(await load(db, world()), first);
    // Every row as it was: no instant, version, encrypted token or note's timestamp moves.
    assert.deepEqual(await snapshot(db), before);
  });

  await t.test(
    'a re-import replaces a record and its children: items, options and links no longer listed go',
    async () => {
      const file = world();
      file.restaurants[0].name = 'Cantina Nova';
      file.cash_flows[0].items.pop();
      file.cash_flows[0].value = '200.00';
      file.complement_categories[0].options = [{ id: 3002, name: 'Cheddar', price: 6 }];
      file.products[0].complement_category_ids = [];
      file.products[2].combo.product_ids = [1001];
      await load(db, file);
      const name = await db
        .selectFrom('restaurants')
        .select('name')
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      assert.equal(name.name, 'Cantina Nova');
      const items = await db.selectFrom('cash_flows').select('id').where('parent_id', '=', 5000).execute();
      assert.deepEqual(items, [{ id: 5001 }]);
      const options = await db
        .selectFrom('complement_options')
        .select('id')
        .where('complement_category_id', '=', 300)
        .execute();
      assert.deepEqual(options, [{ id: 3002 }]);
      const links = await db.selectFrom('product_complement_categories').select('product_id').execute();
      assert.deepEqual(links, []);
      const combo = await db
        .selectFrom('combo_items')
        .select('item_product_id')
        .where('combo_product_id', '=', 1002)
        .execute();
      assert.deepEqual(combo, [{ item_product_id: 1001 }]);
      await load(db, world());
    },
  );

  await t.test(
    'sequences move past imported ids, so a later insert without an id does not collide',
    async () => {
      const restaurant = await db
        .insertInto('restaurants')
        .values({ name: 'Sem id' })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.ok(restaurant.id > 2, `got id ${restaurant.id}`);
      const supplier = await db
        .insertInto('suppliers')
        .values({ restaurant_id: 1, name: 'Sem id' })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.ok(supplier.id > 51, `got id ${supplier.id}`);
      const flow = await db
        .insertInto('cash_flows')
        .values({
          restaurant_id: 1,
          entry_type: 'standalone',
          value: '1.00',
          due_date: '2026-03-01',
          is_earning: true,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.ok(flow.id > 5006);
      const option = await db
        .insertInto('complement_options')
        .values({ restaurant_id: 1, complement_category_id: 300, name: 'Sem id', price: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.ok(option.id > 3011);
      const product = await db
        .insertInto('products')
        .values({
          restaurant_id: 1,
          product_category_id: 100,
          name: 'Sem id',
          price: 1,
          created_at: new Date(),
          updated_at: new Date(),
          schedules: '[]',
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.ok(product.id > 2000);
    },
  );

  await t.test('API keys and client secrets are stored as SHA-256, never in plain text', async () => {
    const key = await db
      .selectFrom('api_keys')
      .select(['key_hash', 'prefix', 'environment'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    assert.equal(key.key_hash, sha256('ck_test_world_key_one'));
    assert.equal(key.environment, 'test');
    const client = await db
      .selectFrom('oauth_clients')
      .select('client_secret_hash')
      .executeTakeFirstOrThrow();
    assert.equal(client.client_secret_hash, sha256('pos-app-secret'));
    const everything = Object.values(await snapshot(db)).join('\n');
    assert.doesNotMatch(everything, /ck_test_world_key_one|pos-app-secret|tok-bella/);
  });

  await t.test('a brand fiscal token is stored encrypted and decrypts with the configured key', async () => {
    const brand = await db
      .selectFrom('brands')
      .select('fiscal_token_encrypted')
      .where('id', '=', 10)
      .executeTakeFirstOrThrow();
    assert.match(brand.fiscal_token_encrypted!, /^v1:[\w-]+:[\w-]+:[\w-]+$/);
    assert.equal(decryptSecret(brand.fiscal_token_encrypted!, FISCAL_KEY), 'tok-bella');
    assert.throws(() =>
      decryptSecret(brand.fiscal_token_encrypted!, 'another-key-of-at-least-32-characters'),
    );
    const none = await db
      .selectFrom('brands')
      .select('fiscal_token_encrypted')
      .where('id', '=', 20)
      .executeTakeFirstOrThrow();
    assert.equal(none.fiscal_token_encrypted, null);
  });

  await t.test('fiscal attributes keep their leading zeros', async () => {
    const row = await db
      .selectFrom('products')
      .select(['ncm', 'cst', 'icms_origem', 'fcp_percentual', 'cfop'])
      .where('id', '=', 1000)
      .executeTakeFirstOrThrow();
    assert.deepEqual(row, { ncm: '02013000', cst: '00', icms_origem: '0', fcp_percentual: '2', cfop: null });
  });

  await t.test('progress is reported per collection up to its total', async () => {
    const seen = new Map<string, { done: number; total: number }>();
    await importData(db, world(), {
      fiscalTokenKey: FISCAL_KEY,
      onProgress: (p) => seen.set(p.collection, p),
    });
    assert.deepEqual(seen.get('cash_flows'), { collection: 'cash_flows', done: 7, total: 7 });
    assert.deepEqual(seen.get('complement_categories'), {
      collection: 'complement_categories',
      done: 4,
      total: 4,
    });
    assert.equal(seen.size, 13);
  });
});
