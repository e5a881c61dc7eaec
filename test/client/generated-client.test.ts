import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generateTypes } from '../../tools/client-types/generate.ts';
import { buildTestApp } from '../support/app.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = fileURLToPath(new URL('./generated-client/integrator.ts', import.meta.url));
const wireTypes = fileURLToPath(new URL('./generated-client/wire-types.ts', import.meta.url));
const clientSources = join(root, 'src/client');

/** The edit's answer read without telling the product from the change review. */
const UNNARROWED = `import createClient from 'openapi-fetch';
import type { paths } from './api.ts';
const api = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000' });
const edited = await api.PUT('/v1/products/{productId}', { params: { path: { productId: 1 } }, body: { price: 1 } });
if (edited.data) console.log(edited.data.updated_at);
`;

/** The project's tsc (TypeScript 7) on one file of `dir`: its exit status and diagnostics. */
function typecheck(dir: string, file: string) {
  const config = {
    compilerOptions: {
      target: 'esnext',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      types: ['node'],
      lib: ['esnext'],
    },
    files: [file],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config));
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
  return { status: run.status, diagnostics: `${run.stdout}${run.stderr}` };
}

test("types generated from /openapi.json type an openapi-fetch integrator script without casts and equal the client's own", async (t) => {
  const { app } = await buildTestApp(t);
  const document = (await app.inject('/openapi.json')).json();
  const dir = mkdtempSync(join(tmpdir(), 'comanda-client-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'api.ts'), await generateTypes(document));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
  copyFileSync(script, join(dir, 'integrator.ts'));
  writeFileSync(join(dir, 'unnarrowed.ts'), UNNARROWED);
  copyFileSync(wireTypes, join(dir, 'wire-types.ts'));
  symlinkSync(clientSources, join(dir, 'client'), 'dir');

  await t.test(
    'the script (token, menu, guarded edit, reviewed bulk edit, cash-flow pages, NF-e) type-checks',
    () => {
      const { status, diagnostics } = typecheck(dir, 'integrator.ts');
      assert.equal(status, 0, `tsc found errors in the integrator script:\n${diagnostics}`);
    },
  );

  await t.test(
    'the same tsc refuses to read the edit answer before telling the product from the review',
    () => {
      const { status, diagnostics } = typecheck(dir, 'unnarrowed.ts');
      assert.notEqual(status, 0, 'an access the document does not type was accepted');
      assert.match(diagnostics, /unnarrowed\.ts\(5,.*'updated_at' does not exist/);
    },
  );

  await t.test("the client's request and response types are exactly the document's, field by field", () => {
    const { status, diagnostics } = typecheck(dir, 'wire-types.ts');
    assert.equal(status, 0, `the client's types and the server's schemas differ:\n${diagnostics}`);
  });

  await t.test('a field renamed in the client alone makes that comparison fail on its type', () => {
    const drift = join(dir, 'drift');
    mkdirSync(drift);
    cpSync(clientSources, join(drift, 'client'), { recursive: true });
    copyFileSync(join(dir, 'api.ts'), join(drift, 'api.ts'));
    copyFileSync(wireTypes, join(drift, 'wire-types.ts'));
    const types = join(drift, 'client/report-types.ts');
    const source = readFileSync(types, 'utf8');
    assert.match(source, /\n {2}fantasy_name: string \| null;/);
    writeFileSync(
      types,
      source.replace('\n  fantasy_name: string | null;', '\n  trade_name: string | null;'),
    );
    const { status, diagnostics } = typecheck(drift, 'wire-types.ts');
    assert.notEqual(status, 0, 'a renamed field went unnoticed');
    const line =
      readFileSync(wireTypes, 'utf8')
        .split('\n')
        .findIndex((text) => text.includes('  Brand:')) + 1;
    assert.match(diagnostics, new RegExp(`wire-types\\.ts\\(${line},`));
  });
});
