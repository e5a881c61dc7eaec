// @comanda/client as an integrator gets it: `npm pack` of the workspace, the tarball installed
// into an empty project with Node 20 first on PATH, and a plain .mjs script run against a live
// server, then a TypeScript file type-checked against the installed declarations.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startFiscalSimulator } from '../../src/fiscal-simulator/fiscal-simulator.ts';
import type { ProviderDocument } from '../../src/fiscal-simulator/simulator-documents.ts';
import { catalogWorld } from '../support/catalog-world.ts';
import { generateEntries, insertEntries, insertRestaurant } from '../support/financial-world.ts';
import { insertBrand, insertNote, providerDocumentOf } from '../support/nfe-world.ts';
import { node20Bin } from '../support/node20.ts';
import { apiKeyFor, listeningApp } from './support.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = fileURLToPath(new URL('./package/integrator.mjs', import.meta.url));
const FISCAL_TOKEN = 'tok-package-test-SECRET';
const FINANCE_RESTAURANT = 910;

type Packed = { filename: string; size: number; files: { path: string }[] };

const TYPED = `import { ComandaClient, type CashFlowsPage, type Product } from '@comanda/client';
const client = new ComandaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
const product: Product = await client.getProduct(1);
const page: CashFlowsPage = await client.listCashFlows({ start_date: '2026-01-01', end_date: '2026-01-31' });
const wrong: number = product.price;
console.log(page.totals.total_earnings, wrong);
`;

/** tsc's diagnostics for `file` of `folder`, checked as an integrator's strict project checks it. */
function typeCheck(folder: string, file: string): string {
  const compilerOptions = {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    noEmit: true,
    lib: ['es2022', 'dom'],
  };
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [file] }));
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  return spawnSync(process.execPath, [tsc, '-p', '.', '--pretty', 'false'], { cwd: folder, encoding: 'utf8' })
    .stdout;
}

test('the packed client installs into an empty project and runs on Node 20 against a live server', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'comanda-package-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '-w', '@comanda/client', '--json', '--pack-destination', dir], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Packed[];

  await t.test('the tarball holds only the built client and its README, tens of KB', () => {
    const paths = packed.files.map((file) => file.path);
    assert.ok(paths.includes('dist/index.js') && paths.includes('dist/index.d.ts'), paths.join(', '));
    assert.ok(paths.includes('README.md'));
    assert.deepEqual(
      paths.filter((path) => !/^(dist\/[a-z-]+\.(js|d\.ts)|README\.md|package\.json)$/.test(path)),
      [],
    );
    assert.ok(packed.size < 60_000, `the tarball is ${packed.size} bytes`);
  });

  const project = join(dir, 'integrator');
  const bin = node20Bin();
  const env = {
    ...process.env,
    PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
    npm_config_update_notifier: 'false',
  };
  /** A new project `folder` with `manifest`, the packed client installed in it with Node 20's npm. */
  const installInto = (folder: string, manifest: object) => {
    mkdirSync(folder);
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ private: true, ...manifest }));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(dir, packed.filename)], {
      cwd: folder,
      env,
      stdio: 'ignore',
    });
  };
  installInto(project, { name: 'integrator', type: 'module' });
  copyFileSync(script, join(project, 'integrator.mjs'));

  await t.test(
    'token, me, menu, an edit, a bulk dry run, cash-flow pages and an NF-e run on Node 20',
    async () => {
      const documents = new Map<string, ProviderDocument | string>();
      const simulator = await startFiscalSimulator({ notes: documents, tokens: new Set([FISCAL_TOKEN]) });
      t.after(() => simulator.close());
      const { ctx, baseUrl } = await listeningApp(t, { config: { fiscalProviderUrl: simulator.url } });
      const { restaurantA } = await catalogWorld(ctx.db, ctx.secrets.sessionSecret);
      const lookups = await insertRestaurant(ctx.db, FINANCE_RESTAURANT, 91_000);
      const entries = generateEntries(FINANCE_RESTAURANT, lookups, {
        seed: 3,
        mains: 150,
        firstId: 600_000,
        from: '2026-01-01',
        days: 90,
      });
      await insertEntries(ctx.db, entries);
      const mains = entries.filter((entry) => entry.parent_id === null && !entry.deleted).length;
      const brand = await insertBrand(ctx.db, restaurantA, ctx.secrets.fiscalTokenKey, {
        name: 'Fiscal',
        isDefault: true,
        fiscalToken: FISCAL_TOKEN,
      });
      const note = await insertNote(ctx.db, restaurantA, { brand_id: brand });
      const access_key = (
        await ctx.db
          .selectFrom('nfe_received')
          .select('access_key')
          .where('id', '=', note)
          .executeTakeFirstOrThrow()
      ).access_key as string;
      documents.set(access_key, providerDocumentOf(access_key));

      // Asynchronous: the server answering the script runs in this process.
      const { stdout } = await promisify(execFile)('node', ['integrator.mjs'], {
        cwd: project,
        encoding: 'utf8',
        env: {
          ...env,
          COMANDA_URL: baseUrl,
          COMANDA_API_KEY: await apiKeyFor(ctx.db, [restaurantA, FINANCE_RESTAURANT]),
          COMANDA_RESTAURANT_ID: String(restaurantA),
          COMANDA_FINANCE_RESTAURANT_ID: String(FINANCE_RESTAURANT),
        },
      });
      const read = JSON.parse(stdout);
      assert.deepEqual(read.me, { kind: 'api_key', restaurants: [restaurantA, FINANCE_RESTAURANT] });
      assert.deepEqual(read.edited, { price: '61.50', changed: true });
      assert.equal(read.review.dryRun, true);
      assert.deepEqual(read.review.changes, [{ field: 'price', from: '61.50', to: '70.00' }]);
      assert.deepEqual(read.pages, [
        { offset: 0, count: 100, remaining: mains - 100 },
        { offset: 100, count: mains - 100, remaining: 0 },
      ]);
      assert.deepEqual(read.notes, [note]);
      assert.deepEqual(read.detail, { accessKey: access_key, issuer: 'Distribuidora Sul' });
      assert.deepEqual(read.refused, { status: 404, key: 'product_not_found' });
    },
  );

  await t.test('a CommonJS project requires it on Node 20, and its declarations type a .cts file', () => {
    const cjs = join(dir, 'cjs-integrator');
    installInto(cjs, { name: 'cjs-integrator' });
    writeFileSync(
      join(cjs, 'require.js'),
      `const { ComandaClient, ComandaError, verifyWebhook } = require('@comanda/client');
console.log(JSON.stringify([typeof ComandaClient, typeof ComandaError, typeof verifyWebhook]));`,
    );
    const run = spawnSync(join(bin, 'node'), ['require.js'], { cwd: cjs, env, encoding: 'utf8' });
    assert.equal(run.stderr, '', 'no error and no warning');
    assert.deepEqual(JSON.parse(run.stdout), ['function', 'function', 'function']);
    writeFileSync(
      join(cjs, 'typed.cts'),
      `import { ComandaClient, type Product } from '@comanda/client';
const client = new ComandaClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
client.getProduct(1).then((product: Product) => {
  const wrong: number = product.price;
  console.log(wrong);
});
`,
    );
    const diagnostics = typeCheck(cjs, 'typed.cts');
    assert.match(
      diagnostics,
      /^typed\.cts\(4,9\): error TS2322: Type 'string' is not assignable to type 'number'\.$/m,
    );
    assert.equal(diagnostics.trim().split('\n').length, 1, diagnostics);
  });

  await t.test('its declarations type an integrator file and refuse a wrong field type', () => {
    writeFileSync(join(project, 'typed.ts'), TYPED);
    const diagnostics = typeCheck(project, 'typed.ts');
    assert.match(
      diagnostics,
      /^typed\.ts\(5,7\): error TS2322: Type 'string' is not assignable to type 'number'\.$/m,
    );
    assert.equal(diagnostics.trim().split('\n').length, 1, diagnostics);
  });
});
