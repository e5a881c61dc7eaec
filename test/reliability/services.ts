// The services the suite needs: the machine's PostgreSQL and Redis (shared with other suites:
// never restarted here), and private ones it may break at will: a PostgreSQL cluster made with
// initdb in a temporary folder, and a redis-server child process.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';

type Hooks = { after(fn: () => unknown): void };

export const SHARED_POSTGRES =
  process.env.RELIABILITY_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** Database 9: the suite's rate-limit counters stay apart from other suites on the same Redis. */
export const SHARED_REDIS = process.env.RELIABILITY_REDIS_URL || 'redis://127.0.0.1:6379/9';

export function reachable(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Why the suite cannot run here, or false when PostgreSQL and Redis both answer. */
export async function missingServices(): Promise<string | false> {
  const missing = [];
  if (!(await reachable(Number(new URL(SHARED_POSTGRES).port || 5432))))
    missing.push(`PostgreSQL (${SHARED_POSTGRES})`);
  if (!(await reachable(Number(new URL(SHARED_REDIS).port || 6379)))) missing.push(`Redis (${SHARED_REDIS})`);
  return missing.length ? `${missing.join(' and ')} not answering on 127.0.0.1` : false;
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions
    .map((v) => join(root, v, 'bin'))
    .find((bin) => existsSync(join(bin, 'pg_ctl')) && existsSync(join(bin, 'initdb')));
}

export type PrivatePostgres = { url: string; stop(): void; start(): void };

/** A throwaway cluster (trust auth, fsync off) on a free port; a string says why it cannot be made. */
export async function privatePostgres(t: Hooks): Promise<PrivatePostgres | string> {
  const bin = postgresBin();
  if (!bin) return 'PostgreSQL server binaries (/usr/lib/postgresql/*/bin/initdb, pg_ctl) are missing';
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'comanda-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const port = await freePort();
  const run = (program: string, args: string[]) => {
    const command = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, program), ...args]]
      : [join(bin, program), args];
    return execFileSync(command[0] as string, command[1] as string[], { stdio: 'pipe', timeout: 60_000 });
  };
  try {
    run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return `initdb failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? error}`;
  }
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => void run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']),
    stop: () => void run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']),
  };
  cluster.start();
  t.after(() => {
    try {
      run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {}
    rmSync(dir, { recursive: true, force: true });
  });
  return cluster;
}

export type PrivateRedis = {
  url: string;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its connections and answers nothing (a hung host). */
  freeze(): void;
  /** SIGCONT: it runs again, with what was sent meanwhile still in its sockets. */
  thaw(): void;
};

/** A redis-server child (no persistence) that the test may kill, freeze and start again on the same port. */
export async function privateRedis(t: Hooks): Promise<PrivateRedis | string> {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'pipe' });
  } catch {
    return 'redis-server is not installed';
  }
  const port = await freePort();
  let child: ChildProcess | undefined;
  const kill = async () => {
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      {
        stdio: 'ignore',
      },
    );
    for (let i = 0; i < 100 && !(await reachable(port)); i++) await new Promise((r) => setTimeout(r, 50));
  };
  await start();
  t.after(kill);
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    start,
    freeze: () => void child?.kill('SIGSTOP'),
    thaw: () => void child?.kill('SIGCONT'),
  };
}
