// A start that fails once the app is built (its port taken) lets go of what the app opened and
// exits: with REDIS_URL set, the Redis client (which reconnects forever) must not hold the process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { listenError } from '../../src/server.ts';
import { cliEnv, seededDataDir } from '../cli/cli-process.ts';

const CLI = new URL('../../src/cli.ts', import.meta.url).pathname;

test('serve on a port in use exits 1 with one line, with REDIS_URL set', async (t) => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const { port } = taken.address() as { port: number };
  // Nothing listens on port 1: the Redis client keeps reconnecting while the start fails.
  const env = cliEnv(await seededDataDir(t), { REDIS_URL: 'redis://127.0.0.1:1', PORT: `${port}` });
  const child = spawn(process.execPath, [CLI, 'serve'], { env });
  t.after(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null | 'running'>((resolve) => {
    child.on('exit', (exitCode) => resolve(exitCode));
    setTimeout(() => resolve('running'), 30_000).unref();
  });
  assert.equal(code, 1, stderr);
  assert.equal(stderr, `error: cannot listen: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`);
});

test('a HOST that resolves to no address is a configuration error naming HOST', () => {
  // The error net raises when HOST's lookup fails, without asking a resolver.
  const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND api.internall'), {
    code: 'ENOTFOUND',
    syscall: 'getaddrinfo',
    hostname: 'api.internall',
  });
  const err = listenError(lookup, 'api.internall');
  assert.ok(err instanceof ConfigError);
  assert.equal(err.message, 'HOST "api.internall" does not resolve to an address (ENOTFOUND)');
  const inUse = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', syscall: 'listen' });
  assert.equal(listenError(inUse, '127.0.0.1'), inUse);
});
