// `.env` in the working directory: loaded by the CLI, an explicit variable wins, a malformed
// file is one clear line (exit code 2, like every configuration error).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadEnvFile } from '../../src/lib/env-file.ts';
import { cliEnv, runCli, tempDir } from './cli-process.ts';

test('the CLI reads .env in the working directory, and an explicit variable wins over it', async (t) => {
  const dir = tempDir(t);
  const dataDir = tempDir(t);
  writeFileSync(join(dir, '.env'), '# local settings\nACCESS_TOKEN_TTL_SECONDS=soon\nLOG_LEVEL="silent"\n');
  const fromFile = await runCli(['migrate'], cliEnv(dataDir), undefined, dir);
  assert.equal(fromFile.code, 2);
  assert.equal(
    fromFile.stderr,
    'configuration error: ACCESS_TOKEN_TTL_SECONDS must be a whole number from 1 to 86400 (got "soon")\n',
  );
  const explicit = await runCli(
    ['migrate'],
    cliEnv(dataDir, { ACCESS_TOKEN_TTL_SECONDS: '60', RATE_LIMIT_PER_MINUTE: 'many' }),
    undefined,
    dir,
  );
  assert.equal(
    explicit.stderr,
    'configuration error: RATE_LIMIT_PER_MINUTE must be a whole number from 1 to 1000000 (got "many")\n',
  );
});

test('a malformed .env stops the CLI with one line naming the file and line', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, '.env'), 'PORT=3000\nMULTI="first\nsecond"\nthis is not a setting\n');
  const result = await runCli(['migrate'], cliEnv(tempDir(t)), undefined, dir);
  assert.equal(result.code, 2);
  assert.equal(result.stderr, 'configuration error: .env line 4 is not NAME=value (nor a # comment)\n');
  assert.equal(result.stdout, '');
});

test('a .env saved with a byte order mark keeps its first variable', (t) => {
  const file = join(tempDir(t), '.env');
  writeFileSync(file, '\uFEFFCOMANDA_TEST_BOM_FIRST=1\nCOMANDA_TEST_BOM_SECOND=2\n');
  t.after(() => {
    delete process.env.COMANDA_TEST_BOM_FIRST;
    delete process.env.COMANDA_TEST_BOM_SECOND;
  });
  assert.equal(loadEnvFile(file), true);
  assert.equal(process.env.COMANDA_TEST_BOM_FIRST, '1');
  assert.equal(process.env.COMANDA_TEST_BOM_SECOND, '2');
  assert.equal(process.env['\uFEFFCOMANDA_TEST_BOM_FIRST'], undefined);
});
