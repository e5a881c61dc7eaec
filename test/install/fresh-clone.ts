// The README's start command on a fresh clone with Node 20 first on PATH, as a newcomer runs it:
// `npm install && npm start` must reach /healthz. Run by .ci/run (`node --test test/install/fresh-clone.ts`),
// not by `npm test`: it installs every package into the clone (from npm's cache when it holds them).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { node20Bin } from '../support/node20.ts';
import { freePort } from '../support/ports.ts';

const repo = execFileSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' }).trim();

test('npm install && npm start on a fresh clone with Node 20 first on PATH answers /healthz', async (t) => {
  const clone = mkdtempSync(join(tmpdir(), 'comanda-clone-'));
  t.after(() => rmSync(clone, { recursive: true, force: true }));
  execFileSync('git', ['clone', '--quiet', repo, clone]);
  const port = await freePort();
  const bin = node20Bin();
  const child = spawn('sh', ['-c', 'npm install && npm start'], {
    cwd: clone,
    detached: true,
    env: {
      PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`,
      HOME: homedir(),
      PORT: String(port),
      LOG_LEVEL: 'warn',
      npm_config_prefer_offline: 'true',
    },
  });
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  t.after(() => {
    try {
      process.kill(-(child.pid as number), 'SIGTERM');
    } catch {}
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  const deadline = Date.now() + 240_000;
  let health: unknown;
  while (Date.now() < deadline && health === undefined) {
    const code = await Promise.race([exited, new Promise((r) => setTimeout(r, 500, 'waiting'))]);
    if (code !== 'waiting')
      assert.fail(`the command ended (exit ${code}) before /healthz answered:\n${output}`);
    health = await fetch(`http://127.0.0.1:${port}/healthz`)
      .then((response) => (response.ok ? response.json() : undefined))
      .catch(() => undefined);
  }
  assert.deepEqual(health, { status: 'ok' }, `no /healthz within 240 s:\n${output}`);
  // The banner with the demo keys follows once the demo data is loaded, after the server listens.
  for (let i = 0; i < 240 && !/Demo API keys/.test(output); i++) await new Promise((r) => setTimeout(r, 250));
  assert.match(output, /Demo API keys/, 'the start prints the demo keys');
  assert.doesNotMatch(output, /ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /, 'no stack trace on the way');
});
