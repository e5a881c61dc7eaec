// `comanda import --check`: every problem of a file in one pass, field and reference problems
// alike, and nothing written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkImport, ImportError, importData } from '../../src/import/import.ts';
import { createTestDatabase } from '../support/database.ts';
import { FISCAL_KEY, world } from './world.ts';

test('a check reports field and reference problems in one pass and writes nothing', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const file = world();
  file.products[0].price = 'free';
  file.products[1].product_category_id = 999;
  file.restaurants[1].timezone = 'Mars/Olympus';
  const problems = await checkImport(database.db, file);
  assert.deepEqual(problems, [
    'restaurants[1].timezone: must be an IANA time zone such as America/Sao_Paulo',
    'products[0].price: must be a number or a decimal string with at most 2 decimals',
    'products[1].product_category_id: category 999 does not exist for restaurant 1',
  ]);
  const written = await database.db.selectFrom('restaurants').select('id').execute();
  assert.deepEqual(written, []);
});

test('a record with a field problem still counts as in the file for references to it', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const file = world();
  file.product_categories[0].available = 'yes';
  const problems = await checkImport(database.db, file);
  assert.deepEqual(problems, ['product_categories[0].available: must be true or false']);
});

test('an import reports the same problems as its check, all at once', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const file = world();
  file.products[0].price = 'free';
  file.products[1].product_category_id = 999;
  await assert.rejects(importData(database.db, file, { fiscalTokenKey: FISCAL_KEY }), (err: Error) => {
    assert.ok(err instanceof ImportError);
    assert.equal(err.issues.length, 2);
    return true;
  });
  assert.deepEqual(await checkImport(database.db, world()), []);
});
