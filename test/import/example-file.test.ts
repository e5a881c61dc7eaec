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

test('comanda import --check finds no problem in examples/demo.json and import loads it as it is', async (t) => {
  const env = cliEnv(await seededDataDir(t));
  const file = fileURLToPath(EXAMPLE_FILE);
  const checked = await runCli(['import', '--check', file], env);
  assert.equal(checked.code, 0, checked.stderr);
  assert.equal(checked.stdout, `${file}: no problems; comanda import ${file} would load it\n`);
  const imported = await runCli(['import', file, '--json'], env);
  assert.equal(imported.code, 0, imported.stderr);
  const { counts } = JSON.parse(imported.stdout);
  assert.equal(counts.restaurants, 2);
  assert.equal(counts.nfe_received, 40);
});

test('comanda import --check --json lists every problem as JSON and exits 1', async (t) => {
  const env = cliEnv(await seededDataDir(t));
  const data = JSON.parse(readFileSync(EXAMPLE_FILE, 'utf8'));
  data.products[0].price = -1;
  data.products[1].product_category_id = 424242;
  const path = join(tempDir(t), 'bad.json');
  writeFileSync(path, JSON.stringify(data));
  const result = await runCli(['import', '--check', path, '--json'], env);
  assert.equal(result.code, 1);
  assert.deepEqual(JSON.parse(result.stdout), {
    ok: false,
    problems: [
      'products[0].price: must be at least 0',
      'products[1].product_category_id: category 424242 does not exist for restaurant 1',
    ],
  });
  const refused = await runCli(['import', path, '--json'], env);
  assert.equal(refused.code, 1);
  assert.equal(JSON.parse(refused.stdout).problems.length, 2);
});
