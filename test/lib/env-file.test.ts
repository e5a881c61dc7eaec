import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EnvFileError, loadEnvFile } from '../../src/lib/env-file.ts';

function envFile(t: { after(fn: () => void): void }, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'comanda-env-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, '.env');
  writeFileSync(path, text);
  return path;
}

test('a .env file fills only the variables the environment does not set', (t) => {
  process.env.COMANDA_T_EXPLICIT = 'explicit';
  t.after(() => {
    delete process.env.COMANDA_T_EXPLICIT;
    delete process.env.COMANDA_T_FROM_FILE;
    delete process.env.COMANDA_T_MULTI;
  });
  const path = envFile(
    t,
    '# comment\n\nexport COMANDA_T_FROM_FILE=file\nCOMANDA_T_EXPLICIT=file\nCOMANDA_T_MULTI="a\nb"\n',
  );
  assert.equal(loadEnvFile(path), true);
  assert.equal(process.env.COMANDA_T_FROM_FILE, 'file');
  assert.equal(process.env.COMANDA_T_EXPLICIT, 'explicit');
  assert.equal(process.env.COMANDA_T_MULTI, 'a\nb');
});

test('no .env file is not an error; a malformed line is, naming the line', (t) => {
  assert.equal(loadEnvFile(join(tmpdir(), 'comanda-no-such-dir', '.env')), false);
  const path = envFile(t, 'A=1\n\nPORT 3000\n');
  assert.throws(
    () => loadEnvFile(path),
    (err: Error) => {
      return (
        err instanceof EnvFileError && err.message === `${path} line 3 is not NAME=value (nor a # comment)`
      );
    },
  );
});

test('a quote that never closes ends its value at the line end, so a malformed line after it is still named', (t) => {
  t.after(() => {
    delete process.env.COMANDA_T_UNCLOSED;
  });
  const path = envFile(t, 'COMANDA_T_UNCLOSED="abc\nPORT 3000\n');
  assert.throws(
    () => loadEnvFile(path),
    (err: Error) =>
      err instanceof EnvFileError && err.message === `${path} line 2 is not NAME=value (nor a # comment)`,
  );
  assert.equal(process.env.COMANDA_T_UNCLOSED, undefined);
});
