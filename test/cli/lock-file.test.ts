// The DATA_DIR lock: one holder at a time, a dead holder's lock taken over by exactly one process.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { lockPath, readLock, tryLock } from '../../src/lib/lock-file.ts';
import { tempDir } from './cli-process.ts';

const DEAD_PID = 2 ** 22 + 11;

/** Starts a contender; resolves with its answer, and `closed` when it exits. */
function contender(dir: string): { answer: Promise<string>; closed: Promise<void> } {
  const child = spawn(process.execPath, [new URL('./fixtures/take-lock.ts', import.meta.url).pathname, dir]);
  let out = '';
  const answer = new Promise<string>((resolve) => {
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return { answer, closed };
}

test('the data folder lock', async (t) => {
  await t.test('a free folder is locked with the holder pid, role and mode 0600, and released', async () => {
    const dir = tempDir(t);
    const result = await tryLock(dir, 'cli', 'import');
    assert.ok('held' in result);
    const info = JSON.parse(readFileSync(lockPath(dir), 'utf8'));
    assert.deepEqual([info.pid, info.role, info.command], [process.pid, 'cli', 'import']);
    assert.equal(statSync(lockPath(dir)).mode & 0o777, 0o600);
    result.held.update({ socket: '/tmp/x.sock' });
    assert.equal(readLock(dir)?.socket, '/tmp/x.sock');
    result.held.release();
    assert.equal(existsSync(lockPath(dir)), false);
  });

  await t.test('a live holder is reported, not taken over', async () => {
    const dir = tempDir(t);
    const first = await tryLock(dir, 'server');
    const second = await tryLock(dir, 'cli');
    assert.ok('holder' in second);
    assert.equal(second.holder.pid, process.pid);
    assert.equal(second.holder.role, 'server');
    if ('held' in first) first.held.release();
  });

  await t.test('a lock left by a dead process, or left empty long ago, is taken over', async () => {
    const dir = tempDir(t);
    writeFileSync(lockPath(dir), JSON.stringify({ pid: DEAD_PID, role: 'server', started_at: '' }));
    assert.equal(readLock(dir), null);
    const taken = await tryLock(dir, 'cli');
    assert.ok('held' in taken);
    taken.held.release();
    writeFileSync(lockPath(dir), '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(dir), old, old);
    const again = await tryLock(dir, 'cli');
    assert.ok('held' in again);
    again.held.release();
  });

  await t.test(
    "a lock naming this process's pid that this process does not hold is stale (a restarted container's pid 1)",
    async () => {
      const dir = tempDir(t);
      writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, role: 'server', started_at: '' }));
      assert.equal(readLock(dir), null);
      const taken = await tryLock(dir, 'server');
      assert.ok('held' in taken);
      assert.equal(readLock(dir)?.pid, process.pid);
      taken.held.release();
      assert.equal(existsSync(lockPath(dir)), false);
    },
  );

  await t.test(
    'a lock whose pid now belongs to another process (after a reboot or a pid reuse) is stale',
    { skip: process.platform !== 'linux' },
    async () => {
      const dir = tempDir(t);
      const other = spawn('sleep', ['30']);
      t.after(() => other.kill());
      await new Promise((resolve) => other.once('spawn', resolve));
      const held = await tryLock(dir, 'server');
      assert.ok('held' in held);
      const recorded = JSON.parse(readFileSync(lockPath(dir), 'utf8'));
      held.held.release();
      // The same record under the live pid of another process: a holder that is not that process.
      writeFileSync(lockPath(dir), JSON.stringify({ ...recorded, pid: other.pid }));
      assert.equal(readLock(dir), null);
      const taken = await tryLock(dir, 'server');
      assert.ok('held' in taken);
      taken.held.release();
    },
  );

  await t.test('of six processes racing for a stale lock exactly one takes it', async () => {
    const dir = tempDir(t);
    writeFileSync(lockPath(dir), JSON.stringify({ pid: DEAD_PID, role: 'cli', started_at: '' }));
    const contenders = Array.from({ length: 6 }, () => contender(dir));
    const results = await Promise.all(contenders.map((c) => c.answer));
    writeFileSync(join(dir, 'release'), '');
    await Promise.all(contenders.map((c) => c.closed));
    assert.equal(results.filter((r) => r === 'held').length, 1, results.join(', '));
    assert.equal(existsSync(join(dir, 'comanda.lock.takeover')), false);
  });
});
