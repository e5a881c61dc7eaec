// fail(): how a failure becomes one line on stderr; "cannot listen" only for a failure to listen.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { fail } from '../../src/cli/output.ts';

/** What fail() writes on stderr, and the exit code it gives. */
function failed(err: unknown): { code: number; stderr: string } {
  const write = process.stderr.write;
  let stderr = '';
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    return { code: fail(err), stderr };
  } finally {
    process.stderr.write = write;
  }
}

const listening = (server: Server, port = 0) =>
  new Promise<void>((done, refuse) => {
    server.once('error', refuse);
    server.listen(port, '127.0.0.1', () => done());
  });

/** An error shaped like the ones Node's fs and net raise. */
const systemError = (message: string, fields: Record<string, unknown>) =>
  Object.assign(new Error(message), fields);

test('only a failure to listen says "cannot listen": a port in use, and a port refused', async (t) => {
  const first = createServer();
  await listening(first);
  t.after(() => first.close());
  const { port } = first.address() as { port: number };
  const inUse = await listening(createServer(), port).then(
    () => assert.fail('the port is taken'),
    (err: unknown) => err,
  );
  assert.deepEqual(failed(inUse), {
    code: 1,
    stderr: `error: cannot listen: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
  });
  // Root may bind any port: the EACCES of a low port as Node raises it.
  const refused = systemError('listen EACCES: permission denied 0.0.0.0:80', {
    code: 'EACCES',
    errno: -13,
    syscall: 'listen',
    address: '0.0.0.0',
    port: 80,
  });
  assert.equal(failed(refused).stderr, 'error: cannot listen: listen EACCES: permission denied 0.0.0.0:80\n');
});

test('an EACCES that is not a listen names the path refused, without "cannot listen"', () => {
  const refused = systemError("EACCES: permission denied, open '/root-owned/file'", {
    code: 'EACCES',
    errno: -13,
    syscall: 'open',
    path: '/root-owned/file',
  });
  assert.deepEqual(failed(refused), { code: 1, stderr: 'error: cannot open /root-owned/file: EACCES\n' });
});
