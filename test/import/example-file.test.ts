// examples/demo.json: the demo data set as an import file, committed, taken by `comanda import`
// as it is.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { EXAMPLE_FILE, exampleText } from '../../scripts/example-import.ts';
import { checkImport } from '../../src/import/import.ts';
import { cliEnv, runCli, seededDataDir, tempDir } from '../cli/cli-process.ts';
import { createTestDatabase } from '../support/database.ts';
import { world } from './world.ts';

test('examples/demo.json is what npm run example writes from the demo data set', () => {
  assert.equal(readFileSync(EXAMPLE_FILE, 'utf8'), exampleText(), 'run npm run example and commit the file');
});

test('the example of docs/import-format.md passes every check of the importer', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const page = readFileSync(new URL('../../docs/import-format.md', import.meta.url), 'utf8');
  const jsonc = /```jsonc\n([\s\S]*?)```/.exec(page)![1];
  const example = JSON.parse(jsonc.replace(/(^|\s)\/\/[^\n]*/g, '$1'));
  assert.deepEqual(await checkImport(database.db, example), []);
});

test('comanda import loads examples/demo.json as it is, after --check found no problem in it', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const data = JSON.parse(readFileSync(EXAMPLE_FILE, 'utf8'));
  assert.deepEqual(await checkImport(database.db, data), []);
  const env = cliEnv(await seededDataDir(t));
  const file = fileURLToPath(EXAMPLE_FILE);
  const imported = await runCli(['import', file, '--json'], env);
  assert.equal(imported.code, 0, imported.stderr);
  const { counts } = JSON.parse(imported.stdout);
  assert.equal(counts.restaurants, 2);
  assert.equal(counts.nfe_received, 40);
});

test('comanda import --check says a good file would load and prints every problem of a bad one; with --json as JSON, exit 1 either way', async (t) => {
  const env = cliEnv(await seededDataDir(t));
  const data = world();
  data.products[0].price = -1;
  data.products[1].product_category_id = 424242;
  const path = join(tempDir(t), 'bad.json');
  writeFileSync(path, JSON.stringify(data));
  const problems = [
    'products[0].price: must be at least 0',
    'products[1].product_category_id: category 424242 does not exist for restaurant 1',
  ];
  const good = join(tempDir(t), 'good.json');
  writeFileSync(good, JSON.stringify(world()));
  const clean = await runCli(['import', '--check', good], env);
  assert.equal(clean.code, 0, clean.stderr);
  assert.equal(clean.stdout, `${good}: no problems; comanda import ${good} would load it\n`);
  const text = await runCli(['import', '--check', path], env);
  assert.equal(text.code, 1);
  assert.equal(text.stderr, `${path}: 2 problems, nothing was written:\n  ${problems.join('\n  ')}\n`);
  const json = await runCli(['import', '--check', path, '--json'], env);
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.stdout), { ok: false, problems });
  const refused = await runCli(['import', path, '--json'], env);
  assert.equal(refused.code, 1);
  assert.deepEqual(JSON.parse(refused.stdout).problems, problems);
});
