// An exclusive lock on DATA_DIR (`comanda.lock`): PGlite has one owner process, so whoever
// opens the embedded database holds this file first. It names its holder's pid and role (and,
// for a server, the admin socket). A lock whose pid is dead (or is this process's, when this
// process does not hold it) is stale and taken over. On Linux it also names the holder process
// itself (boot id and start time in clock ticks): a pid that a later process was given, after a
// reboot or a pid reuse, does not keep the lock.
import { closeSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type LockInfo = {
  pid: number;
  role: 'server' | 'cli';
  command?: string;
  socket?: string;
  started_at: string;
  /** Linux: `boot id:start ticks` of the holder, which no other process shares. */
  process?: string;
};

type HeldLock = {
  info: LockInfo;
  /** Rewrites the lock's content (a server adds its socket once it listens). */
  update(changes: Partial<LockInfo>): void;
  release(): void;
};

export const lockPath = (dataDir: string) => join(dataDir, 'comanda.lock');

/** The lock files this process holds: a lock naming our pid but not held here was left by an
 * earlier process that had the same pid (a restarted container's server is pid 1 again). */
const heldHere = new Set<string>();

/** Linux: the boot id and start time (field 22 of /proc/PID/stat) of a live process. */
function processIdentity(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const startTicks = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return startTicks ? `${bootId}:${startTicks}` : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number, file: string, identity?: string): boolean {
  if (pid === process.pid) return heldHere.has(resolve(file));
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: it exists, under another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const current = identity ? processIdentity(pid) : undefined;
  return current === undefined || current === identity;
}

/** The live holder, or null when the lock is free or stale. */
export function readLock(dataDir: string): LockInfo | null {
  let info: LockInfo;
  try {
    info = JSON.parse(readFileSync(lockPath(dataDir), 'utf8'));
  } catch {
    return null;
  }
  return Number.isInteger(info.pid) && isAlive(info.pid, lockPath(dataDir), info.process) ? info : null;
}

function write(file: string, info: LockInfo, flag: 'wx' | 'w'): void {
  const fd = openSync(file, flag, 0o600);
  try {
    writeSync(fd, JSON.stringify(info));
  } finally {
    closeSync(fd);
  }
}

/** Removes a stale lock, under a short-lived guard so two processes never both take it over. */
async function clearStale(dataDir: string): Promise<void> {
  const guard = `${lockPath(dataDir)}.takeover`;
  try {
    closeSync(openSync(guard, 'wx', 0o600));
  } catch {
    // Another process is taking over; its guard older than 5 s means it died doing so.
    try {
      if (Date.now() - statSync(guard).mtimeMs > 5000) unlinkSync(guard);
    } catch {}
    await sleep(20);
    return;
  }
  try {
    const file = lockPath(dataDir);
    const raw = readFileSync(file, 'utf8');
    const pid = Number(/"pid":(\d+)/.exec(raw)?.[1]);
    const identity = /"process":"([^"]+)"/.exec(raw)?.[1];
    // An empty lock is one being written, unless its writer died before writing.
    const stale = pid ? !isAlive(pid, file, identity) : Date.now() - statSync(file).mtimeMs > 1000;
    if (stale) unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  } finally {
    unlinkSync(guard);
  }
}

/** Takes the lock, or returns its live holder without waiting. */
export async function tryLock(
  dataDir: string,
  role: LockInfo['role'],
  command?: string,
): Promise<{ held: HeldLock } | { holder: LockInfo }> {
  const file = lockPath(dataDir);
  for (let attempt = 0; ; attempt++) {
    const info: LockInfo = {
      pid: process.pid,
      role,
      command,
      started_at: new Date().toISOString(),
      process: processIdentity(process.pid),
    };
    try {
      write(file, info, 'wx');
      heldHere.add(resolve(file));
      return { held: heldLock(dataDir, info) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(dataDir);
    if (holder) return { holder };
    // Just created and not yet written, or stale: give a writer a moment before taking over.
    if (attempt > 0) await clearStale(dataDir);
    await sleep(20);
  }
}

function heldLock(dataDir: string, info: LockInfo): HeldLock {
  const file = lockPath(dataDir);
  let released = false;
  return {
    info,
    update(changes) {
      Object.assign(info, changes);
      const tmp = `${file}.${process.pid}.tmp`;
      write(tmp, info, 'w');
      renameSync(tmp, file);
    },
    release() {
      if (released) return;
      released = true;
      const mine = readLock(dataDir)?.pid === process.pid;
      heldHere.delete(resolve(file));
      if (mine) unlinkSync(file);
    },
  };
}
