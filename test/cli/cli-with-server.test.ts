// The CLI while `node src/cli.ts serve` runs on the same embedded DATA_DIR: commands go over the
// server's admin channel (one PGlite owner); afterwards the server still answers, and after a
// graceful stop the data folder opens cleanly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { verifySession } from '../../src/modules/auth/session-token.ts';
import { embeddedOnly } from '../support/database.ts';
import { cliEnv, runCli, seededDataDir, serve } from './cli-process.ts';

const ROOT = new URL('../../', import.meta.url);

const EXTRA = {
  restaurants: [{ id: 3, name: 'Terceiro' }],
  product_categories: [{ id: 900, restaurant_id: 3, name: 'Lanches' }],
  products: [{ id: 9000, restaurant_id: 3, product_category_id: 900, name: 'X-Salada', price: 25.5 }],
};

function postToSocket(socketPath: string, token: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method: 'POST',
        path: '/commands/api-key%20list',
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

test('the CLI while the server runs on the same data folder', embeddedOnly, async (t) => {
  const dataDir = await seededDataDir(t);
  const env = cliEnv(dataDir, { PORT: '0' });
  const server = await serve(env);
  t.after(() => server.stop());
  const file = join(dataDir, 'extra.json');
  writeFileSync(file, JSON.stringify(EXTRA));

  await t.test('the server on an empty embedded database loads the demo and prints its API keys', () => {
    assert.match(server.address, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(
      server.first.demo_api_keys.map((k: { restaurant_ids: number[] }) => k.restaurant_ids),
      [[1], [2], [1, 2]],
    );
    assert.equal(server.first.demo_console_account.email, 'demo@comanda.example');
    assert.ok(server.first.demo_console_account.one_time_password.length >= 10);
  });

  await t.test('without FISCAL_PROVIDER_URL the demo data gets the in-process fiscal simulator', async () => {
    assert.match(server.first.fiscal_simulator, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.notEqual(server.first.fiscal_simulator, server.address);
  });

  await t.test('user list shows the demo console account waiting for its password change', async () => {
    const result = await runCli(['user', 'list'], env);
    assert.equal(result.code, 0, result.stderr);
    const [header, row] = result.stdout.trim().split('\n');
    assert.match(header, /^ID\s+EMAIL\s+STATE\s+RESTAURANTS\s+CREATED \(UTC\)$/);
    assert.match(row, /^1\s+demo@comanda\.example\s+one-time password\s+1,2\s+\d{4}-\d\d-\d\d \d\d:\d\d$/);
  });

  await t.test('api-key list prints a table with a header, created and last used', async () => {
    const result = await runCli(['api-key', 'list'], env);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.match(
      lines[0],
      /^ID\s+PREFIX\s+STATE\s+RESTAURANTS\s+CREATED \(UTC\)\s+LAST USED \(UTC\)\s+NAME\s+SCOPES$/,
    );
    assert.equal(lines.length, 4);
    assert.match(
      lines[1],
      /^1\s+ck_test_\S+…\s+active\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+never\s+Demo: Cantina Bella\s+/,
    );
  });

  await t.test(
    'demo on a database that holds data refuses without a terminal or --yes, in one line',
    async () => {
      const result = await runCli(['demo'], env);
      assert.equal(result.code, 1);
      assert.equal(
        result.stderr,
        'error: the database already holds data: run comanda demo --yes to replace the demo records (restaurants 1 and 2, API keys 1-3, the demo console password)\n',
      );
    },
  );

  await t.test(
    'demo on a terminal says what a reload replaces and changes nothing unless told yes',
    async (t) => {
      // util-linux `script` gives the command a terminal; without it this check is skipped.
      const command = `${process.execPath} src/cli.ts demo`;
      const tty = spawnSync('script', ['-qec', command, '/dev/null'], {
        cwd: ROOT,
        env,
        input: 'n\n',
        encoding: 'utf8',
      });
      if (tty.error) return t.skip('no script(1) here');
      assert.match(tty.stdout, /The database already holds data\. comanda demo rewrites restaurants 1 and 2/);
      assert.match(tty.stdout, /Replace them\? \[y\/N\] /);
      assert.match(tty.stdout, /error: nothing was changed/);
      const keys = JSON.parse((await runCli(['api-key', 'list', '--json'], env)).stdout).api_keys;
      assert.equal(keys.length, 3);
    },
  );

  await t.test('demo --yes replaces the demo keys and console password and says so', async () => {
    const result = await runCli(['demo', '--yes'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /It rewrote restaurants 1 and 2 .* replaced API keys 1-3/);
    assert.match(
      result.stdout,
      /Demo API keys \(shown once\):\n {2}Demo: Cantina Bella \(restaurants 1\):\n {4}ck_test_/,
    );
    assert.match(
      result.stdout,
      /Console account \(\/console\/login\).*\n {2}demo@comanda\.example\n {2}\S{10,}\n$/,
    );
    assert.ok(!result.stdout.includes(server.first.demo_api_keys[0].api_key));
    assert.ok(!result.stdout.includes(server.first.demo_console_account.one_time_password));
  });

  await t.test('user reset-password prints a one-time password; user disable stops the account', async () => {
    const reset = await runCli(['user', 'reset-password', 'DEMO@comanda.example'], env);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /^demo@comanda\.example: password reset; 0 console session\(s\) ended\./);
    const disabled = await runCli(['user', 'disable', 'demo@comanda.example'], env);
    assert.equal(disabled.stdout, 'demo@comanda.example disabled; 0 console session(s) ended\n');
    const list = await runCli(['user', 'list', '--json'], env);
    assert.equal(JSON.parse(list.stdout).users[0].disabled, true);
    const unknown = await runCli(['user', 'disable', 'nobody@example.com'], env);
    assert.equal(unknown.stderr, 'error: no console account has the email nobody@example.com\n');
  });

  await t.test('the server holds the lock and serves its channel on a 0600 socket with a 0600 token', () => {
    const lock = JSON.parse(readFileSync(join(dataDir, 'comanda.lock'), 'utf8'));
    assert.equal(lock.pid, server.child.pid);
    assert.equal(lock.role, 'server');
    assert.equal(lock.socket, join(dataDir, 'admin.sock'));
    assert.equal(statSync(lock.socket).mode & 0o777, 0o600);
    assert.equal(statSync(join(dataDir, 'admin.token')).mode & 0o777, 0o600);
  });

  await t.test('the channel refuses a caller without the token', async () => {
    assert.equal(await postToSocket(join(dataDir, 'admin.sock'), 'not-the-token'), 401);
  });

  let created: { id: number; api_key: string };
  await t.test('api-key create runs in the server', async () => {
    const result = await runCli(
      ['api-key', 'create', '--restaurant', '2', '--scope', 'financial:read', '--json'],
      env,
    );
    assert.equal(result.code, 0, result.stderr);
    created = JSON.parse(result.stdout);
    assert.equal(created.id, 4);
  });

  await t.test('import runs in the server', async () => {
    const result = await runCli(['import', file, '--json'], env);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).counts.products, 1);
  });

  await t.test('a rejected import over the channel is reported like a local one', async () => {
    writeFileSync(file, JSON.stringify({ products: [{ ...EXTRA.products[0], price: 'free' }] }));
    const result = await runCli(['import', file], env);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      'error: import rejected, nothing was written (1 problem):\n  products[0].price: must be a number or a decimal string with at most 2 decimals\n',
    );
  });

  await t.test('session create is signed with the secret the server verifies', async () => {
    const result = await runCli(['session', 'create', '--restaurant', '3'], env);
    assert.equal(result.code, 0, result.stderr);
    const { sessionSecret } = JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'));
    assert.equal(verifySession(result.stdout.trim(), sessionSecret)?.restaurant_id, 3);
  });

  await t.test('a second server on the same data folder is refused', async () => {
    const result = await runCli(['serve'], env);
    assert.equal(result.code, 1);
    assert.equal(
      result.stderr,
      `error: another comanda server (pid ${server.child.pid}) already serves ${dataDir}\n`,
    );
  });

  await t.test('the server still answers', async () => {
    const res = await fetch(`${server.address}/readyz`);
    assert.equal(res.status, 200);
  });

  await t.test(
    'after a graceful stop the folder is released and opens cleanly with every write kept',
    async () => {
      assert.equal(await server.stop(), 0);
      for (const name of ['comanda.lock', 'admin.sock', 'admin.token'])
        assert.equal(existsSync(join(dataDir, name)), false, name);
      const list = await runCli(['api-key', 'list', '--json'], env);
      assert.equal(list.code, 0, list.stderr);
      const keys = JSON.parse(list.stdout).api_keys;
      assert.deepEqual(
        keys.map((k: { id: number }) => k.id),
        [1, 2, 3, 4],
      );
      const session = await runCli(['session', 'create', '--restaurant', '3', '--json'], env);
      assert.equal(session.code, 0, session.stderr);
    },
  );
});
