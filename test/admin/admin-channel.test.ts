// The admin channel's socket when DATA_DIR/admin.sock is too long for a Unix socket: a folder of
// the server's own in the temp dir, which no other local user can take first.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { startAdminChannel } from '../../src/admin/admin-channel.ts';
import { COMMANDS } from '../../src/admin/commands.ts';
import { claimDataDir } from '../../src/admin/embedded-owner.ts';
import { runCommand } from '../../src/admin/run-command.ts';
import { readLock } from '../../src/lib/lock-file.ts';
import { testConfig } from '../support/app.ts';

/** A DATA_DIR whose admin.sock path is longer than a Unix socket allows. */
function longDataDir(t: { after(fn: () => void): void }): string {
  const root = mkdtempSync(join(tmpdir(), 'comanda-admin-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'a-data-folder-whose-path-is-too-long-for-a-unix-socket'.repeat(2));
  mkdirSync(dir, { recursive: true });
  return dir;
}

const ctx = {} as Parameters<typeof startAdminChannel>[1];

function post(socketPath: string, token: string, command: string): Promise<number | undefined> {
  return new Promise((done, fail) => {
    const path = `/commands/${encodeURIComponent(command)}`;
    const req = request({ socketPath, method: 'POST', path, headers: { authorization: `Bearer ${token}` } });
    req.on('response', (res) => {
      res.resume();
      done(res.statusCode);
    });
    req.on('error', fail).end('{}');
  });
}

test('a DATA_DIR too long for a socket path gets the socket in a new 0700 folder of its own under the temp dir', async (t) => {
  const dataDir = longDataDir(t);
  const first = await startAdminChannel(dataDir, ctx);
  t.after(() => first.close());
  const folder = dirname(first.socketPath);
  assert.equal(dirname(folder), resolve(tmpdir()));
  assert.match(basename(folder), /^comanda-admin-/);
  const stat = lstatSync(folder);
  assert.ok(stat.isDirectory());
  assert.equal(stat.mode & 0o777, 0o700);
  assert.equal(stat.uid, process.getuid?.());
  assert.equal(lstatSync(first.socketPath).mode & 0o777, 0o600);
  const token = readFileSync(join(dataDir, 'admin.token'), 'utf8');
  assert.equal(await post(first.socketPath, token, 'no such command'), 404, 'the server answers on it');
  // Names an object inherits are no commands.
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty'])
    assert.equal(await post(first.socketPath, token, name), 404, name);
  await first.close();
  assert.equal(existsSync(folder), false, 'closing removes the folder');
  const second = await startAdminChannel(dataDir, ctx);
  t.after(() => second.close());
  assert.notEqual(dirname(second.socketPath), folder, 'a new, unpredictable folder on every start');
});

test('a name taken in advance in the temp dir (the old predictable one) does not stop the server', async (t) => {
  const dataDir = longDataDir(t);
  const digest = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  const squatted = join(tmpdir(), `comanda-${digest}.sock`);
  mkdirSync(join(squatted, 'theirs'), { recursive: true });
  t.after(() => rmSync(squatted, { recursive: true, force: true }));
  const channel = await startAdminChannel(dataDir, ctx);
  t.after(() => channel.close());
  assert.notEqual(channel.socketPath, squatted);
  assert.ok(existsSync(join(squatted, 'theirs')), 'what another user put there is left alone');
});

test('the CLI reaches the server over the fallback socket, found through the lock', async (t) => {
  const dataDir = longDataDir(t);
  const config = testConfig({ databaseUrl: undefined, dataDir });
  const owner = await claimDataDir(config);
  assert.ok(owner);
  t.after(() => owner.release());
  COMMANDS['test echo'] = async (_ctx, args) => args;
  t.after(() => delete COMMANDS['test echo']);
  await owner.serve(ctx);
  t.after(() => owner.closeChannel());
  const socket = readLock(dataDir)?.socket;
  assert.ok(socket?.startsWith(join(resolve(tmpdir()), 'comanda-admin-')), socket);
  assert.deepEqual(await runCommand(config, 'test echo', { over: 'the channel' }, { waitMs: 0 }), {
    over: 'the channel',
  });
});
