// SIGTERM while a request is in flight: the server stops accepting, the request completes, the
// database closes, the data folder is released, and the process exits 0.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { cliEnv, tempDir } from '../cli/cli-process.ts';

/** The slow-server fixture, started: its address, a wait for a line of its output, its exit. */
async function slowServer(t: TestContext) {
  const dataDir = tempDir(t, 'comanda-stop-');
  const fixture = new URL('./fixtures/slow-server.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, [fixture], { env: cliEnv(dataDir, { PORT: '0', SLOW_MS: '1500' }) });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => child.kill('SIGKILL'));
  let stdout = '';
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const check = () => (stdout.includes(text) ? resolve() : undefined);
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        check();
      });
      exited.then(() => reject(new Error(`server exited before "${text}": ${stdout}`)));
      check();
    });
  await seen('"listening"');
  const address: string = JSON.parse(stdout.split('\n').find((l) => l.startsWith('{'))!).listening;
  return { dataDir, child, exited, seen, address };
}

test('graceful shutdown with a request in flight', async (t) => {
  const { dataDir, child, exited, seen, address } = await slowServer(t);

  const slow = fetch(`${address}/test/slow`);
  await seen('slow request started');
  child.kill('SIGTERM');
  await seen('SIGTERM received');

  const late = await fetch(`${address}/healthz`).then(
    (res) => res.status,
    () => 'refused',
  );
  assert.ok(late === 'refused' || late === 503, `a new request after SIGTERM got ${late}`);
  const res = await slow;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { finished: true });
  const answered = Date.now();
  assert.equal(await exited, 0);
  // This client keeps its connection alive: the stop must not wait for its keep-alive timeout.
  assert.ok(Date.now() - answered < 3000, `exited ${Date.now() - answered} ms after the last response`);
  assert.equal(existsSync(join(dataDir, 'comanda.lock')), false);
  assert.equal(existsSync(join(dataDir, 'admin.sock')), false);
});

// `npm start` and Ctrl-C: the terminal signals node and npm, and npm forwards its signal to node.
test('a second signal during the stop changes nothing: the request finishes and the stop is clean', async (t) => {
  const { dataDir, child, exited, seen, address } = await slowServer(t);

  const slow = fetch(`${address}/test/slow`);
  await seen('slow request started');
  child.kill('SIGINT');
  await seen('SIGINT received');
  child.kill('SIGINT');
  child.kill('SIGTERM');
  const res = await slow;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { finished: true });
  assert.equal(await exited, 0);
  assert.equal(existsSync(join(dataDir, 'comanda.lock')), false);
  assert.equal(existsSync(join(dataDir, 'admin.sock')), false);
});
