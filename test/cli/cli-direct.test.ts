// `node src/cli.ts ...` as real processes with no server running: each command takes the
// DATA_DIR lock, opens the embedded database itself, and lets go.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { verifySession } from '../../src/modules/auth/session-token.ts';
import { world } from '../import/world.ts';
import { createTestDatabase, embeddedOnly, testDatabaseUrl } from '../support/database.ts';
import { cliEnv, runCli, seededDataDir, tempDir } from './cli-process.ts';

const NO_STACK = /\n\s+at |Error:/;

test('the CLI without a running server', embeddedOnly, async (t) => {
  const dataDir = await seededDataDir(t);
  const env = cliEnv(dataDir);
  const file = join(tempDir(t), 'world.json');
  writeFileSync(file, JSON.stringify(world()));

  await t.test('a user error is one line on stderr with exit code 1, never a stack trace', async () => {
    const result = await runCli(['api-key', 'create', '--restaurant', '1', '--scope', 'menu:read'], env);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'error: restaurant 1 does not exist\n');
    assert.equal(result.stdout, '');
  });

  await t.test('import loads a file and prints its counts as JSON', async () => {
    const result = await runCli(['import', file, '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    const { counts } = JSON.parse(result.stdout);
    assert.equal(counts.products, 4);
    assert.equal(counts.cash_flow_items, 4);
  });

  await t.test('import of a file breaking a rule names the record and field', async () => {
    const bad = world();
    bad.products[0].product_category_id = 999;
    writeFileSync(`${file}.bad`, JSON.stringify(bad));
    const result = await runCli(['import', `${file}.bad`], env);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^error: import rejected, nothing was written \(1 problem\):\n {2}products\[0\]\.product_category_id: category 999 does not exist for restaurant 1\n$/,
    );
  });

  await t.test('import of a missing or malformed file says so plainly', async () => {
    const missing = await runCli(['import', join(dataDir, 'nope.json')], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: cannot read .*nope\.json: no such file\n$/);
    writeFileSync(`${file}.broken`, '{"restaurants": [');
    const broken = await runCli(['import', `${file}.broken`], env);
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /^error: .*broken is not valid JSON: /);
    assert.doesNotMatch(broken.stderr, NO_STACK);
  });

  await t.test('import of a file giving a key twice names it and writes nothing', async () => {
    const twice = JSON.stringify({ ...world(), restaurants: [{ id: 9, name: 'Nova' }] }, null, 2).replace(
      '"price": 42.9,',
      '"price": 42.9,\n      "price": 4.29,',
    );
    writeFileSync(`${file}.twice`, twice);
    const result = await runCli(['import', `${file}.twice`], env);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^error: .*\.twice gives products\[0\]\.price twice \(the second at line \d+, column 7\); a key may appear only once in an object\n$/,
    );
    const checked = await runCli(['import', '--check', '--json', `${file}.twice`], env);
    assert.equal(checked.code, 1);
    assert.match(JSON.parse(checked.stdout).problems[0], /gives products\[0\]\.price twice/);
    const exported = await runCli(['export', '--restaurant', '1'], env);
    assert.equal(exported.code, 0, exported.stderr);
    const product = JSON.parse(exported.stdout).products.find((p: { id: number }) => p.id === 1000);
    assert.equal(Number(product.price), 42.9);
    const nova = await runCli(['api-key', 'create', '--restaurant', '9', '--scope', 'menu:read'], env);
    assert.equal(nova.stderr, 'error: restaurant 9 does not exist\n');
  });

  await t.test(
    'export --include-secrets --output leaves the file mode 0600, even a file that existed',
    async () => {
      const output = join(tempDir(t), 'export.json');
      writeFileSync(output, '', { mode: 0o644 });
      chmodSync(output, 0o644);
      const result = await runCli(
        ['export', '--restaurant', '1', '--include-secrets', '--output', output],
        env,
      );
      assert.equal(result.code, 0, result.stderr);
      assert.match(readFileSync(output, 'utf8'), /tok-bella/);
      assert.equal(statSync(output).mode & 0o777, 0o600);
    },
  );

  await t.test('export --output to a file that cannot be written names that file', async () => {
    const output = join(tempDir(t), 'no-such-folder', 'export.json');
    const result = await runCli(['export', '--restaurant', '1', '--output', output], env);
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `error: cannot write ${output}: ENOENT\n`);
  });

  await t.test(
    'export to a pipe its reader closed (`| head`) ends quietly, without a stack trace',
    async () => {
      const cli = new URL('../../src/cli.ts', import.meta.url).pathname;
      const child = spawn(process.execPath, [cli, 'export', '--restaurant', '1'], { env });
      // The reader goes before the export is written: its write finds the pipe closed (EPIPE).
      child.stdout.destroy();
      let stderr = '';
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assert.equal(stderr, '');
      assert.equal(code, 0);
    },
  );

  await t.test(
    'api-key create prints the key once; --json gives id, api_key, restaurant_ids and scopes',
    async () => {
      const human = await runCli(
        ['api-key', 'create', '--restaurant', '1', '--scope', 'menu:read', 'products:read', '--name', 'POS'],
        env,
      );
      assert.equal(human.code, 0, human.stderr);
      assert.match(human.stdout, /\nck_live_[\w-]{43}\n$/);
      const json = await runCli(
        [
          'api-key',
          'create',
          '--restaurant',
          '1',
          '--restaurant',
          '2',
          '--scope',
          'menu:read',
          '--test',
          '--json',
        ],
        env,
      );
      const key = JSON.parse(json.stdout);
      assert.deepEqual(Object.keys(key), ['id', 'api_key', 'restaurant_ids', 'scopes']);
      assert.deepEqual([key.restaurant_ids, key.scopes], [[1, 2], ['menu:read']]);
      assert.match(key.api_key, /^ck_test_/);
    },
  );

  await t.test('api-key revoke, then list shows it revoked and never a key or its hash', async () => {
    const revoked = await runCli(['api-key', 'revoke', '2'], env);
    assert.equal(revoked.stdout, 'API key 2 revoked; its access tokens no longer work\n');
    const list = JSON.parse((await runCli(['api-key', 'list', '--json'], env)).stdout).api_keys;
    assert.deepEqual(
      list.map((k: { id: number }) => k.id),
      [1, 2, 3],
    );
    assert.notEqual(list[1].revoked_at, null);
    assert.equal(list[0].revoked_at, null);
    assert.doesNotMatch(JSON.stringify(list), /key_hash|ck_test_world_key_one/);
  });

  await t.test('session create prints a token signed with the secret kept in DATA_DIR', async () => {
    const result = await runCli(['session', 'create', '--restaurant', '2', '--ttl', '60'], env);
    assert.equal(result.code, 0, result.stderr);
    const { sessionSecret } = JSON.parse(
      (await import('node:fs')).readFileSync(join(dataDir, 'secrets.json'), 'utf8'),
    );
    assert.equal(verifySession(result.stdout.trim(), sessionSecret)?.restaurant_id, 2);
  });

  await t.test('migrate reports that the database is up to date', async () => {
    assert.deepEqual(JSON.parse((await runCli(['migrate', '--json'], env)).stdout), { applied: [] });
  });

  await t.test('commands started at the same moment take turns with the data folder', async () => {
    const args = ['api-key', 'create', '--restaurant', '2', '--scope', 'menu:read', '--json'];
    const results = await Promise.all([runCli(args, env), runCli(args, env)]);
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const ids = results.map((r) => JSON.parse(r.stdout).id);
    assert.notEqual(ids[0], ids[1]);
  });

  await t.test('a command releases the data folder lock when it ends', () => {
    assert.equal(existsSync(join(dataDir, 'comanda.lock')), false);
  });

  await t.test('a stale lock of a dead process is taken over', async () => {
    writeFileSync(
      join(dataDir, 'comanda.lock'),
      JSON.stringify({ pid: 2 ** 22 + 7, role: 'server', started_at: '' }),
    );
    const result = await runCli(['api-key', 'list', '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(existsSync(join(dataDir, 'comanda.lock')), false);
  });

  await t.test('an invalid configuration names the variable and exits with 2', async () => {
    const result = await runCli(['migrate'], cliEnv(dataDir, { ACCESS_TOKEN_TTL_SECONDS: 'soon' }));
    assert.equal(result.code, 2);
    assert.equal(
      result.stderr,
      'configuration error: ACCESS_TOKEN_TTL_SECONDS must be a whole number from 1 to 86400 (got "soon")\n',
    );
  });
});

test('on PostgreSQL the CLI connects directly, with no lock file', { skip: !testDatabaseUrl }, async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const file = join(tempDir(t), 'world.json');
  writeFileSync(file, JSON.stringify(world()));
  const pgDir = tempDir(t);
  const pgEnv = cliEnv(pgDir, { DATABASE_URL: database.url });
  const imported = await runCli(['import', file, '--json'], pgEnv);
  assert.equal(imported.code, 0, imported.stderr);
  const key = JSON.parse(
    (await runCli(['api-key', 'create', '--restaurant', '2', '--scope', 'menu:read', '--json'], pgEnv))
      .stdout,
  );
  const stored = await database.db.selectFrom('api_keys').select('id').where('id', '=', key.id).execute();
  assert.equal(stored.length, 1);
  assert.equal(existsSync(join(pgDir, 'comanda.lock')), false);
});
