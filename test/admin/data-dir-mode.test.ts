// The embedded database's folder is private when comanda creates it: PGlite writes many of its
// files mode 0666, so only the folder keeps other local users from reading or rewriting them.
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { cliEnv, runCli, tempDir } from '../cli/cli-process.ts';
import { testDatabaseUrl } from '../support/database.ts';

test('a DATA_DIR that comanda creates is mode 0700', { skip: Boolean(testDatabaseUrl) }, async (t) => {
  const dataDir = join(tempDir(t), 'fresh', 'data');
  const result = await runCli(['migrate'], cliEnv(dataDir));
  assert.equal(result.code, 0, result.stderr);
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  assert.ok(statSync(join(dataDir, 'PG_VERSION')).isFile(), 'the database lives in it');
});
