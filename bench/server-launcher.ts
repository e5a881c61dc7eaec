// The server under test as production runs it: `node src/main.ts` in a child process, with the
// V8 flags of `npm start` (package.json), configured by the environment, ready once /healthz
// answers. Its memory and CPU are read from /proc.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(ROOT, 'src/main.ts');
const PACKAGE = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const START = /^((?:[A-Z_]+=\S+ )*)node((?: --\S+)*) /.exec(PACKAGE.scripts.start);
/** The `--flags` between `node` and the script in `npm start`: the bench measures what operators run. */
export const NODE_FLAGS: string[] = START?.[2].trim().split(' ').filter(Boolean) ?? [];
/** The `NAME=value` settings before `node` in `npm start` (the C library's, read at process start). */
export const START_ENV: Record<string, string> = Object.fromEntries(
  (START?.[1].trim().split(' ').filter(Boolean) ?? []).map((pair) => pair.split('=', 2)),
);
const TICK_MS = 10; // USER_HZ is 100 on Linux

export type LaunchedServer = {
  url: string;
  pid: number;
  /** Resident memory now and its peak so far (VmRSS, VmHWM), in MiB. */
  memory(): { rss: number; peak: number };
  /** User + system CPU time used so far, in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
};

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

function status(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : 0;
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}): ${log()}`);
    const ok = await fetch(`${url}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not answer /healthz within 60 s: ${log()}`);
}

export async function launchServer(
  env: Record<string, string>,
  cpuProfileDir?: string,
  /** Another checkout's src/main.ts (bench/events-overhead.ts runs an older commit beside this one). */
  main = MAIN,
  /** V8 flags besides those of `npm start` (a later one of the same name wins). */
  extraFlags: string[] = [],
): Promise<LaunchedServer> {
  const port = await freePort();
  const flags = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
  flags.push(...extraFlags);
  const inherited = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'REDIS_URL']) delete inherited[name];
  const child = spawn(process.execPath, [...NODE_FLAGS, ...flags, main], {
    env: { ...inherited, ...START_ENV, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  // A bench that stops on an error must not leave the server running.
  const orphan = () => child.kill('SIGKILL');
  process.once('exit', orphan);
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitReady(url, child, () => stderr);
  const pid = child.pid!;
  return {
    url,
    pid,
    memory: () => ({ rss: status(pid, 'VmRSS'), peak: status(pid, 'VmHWM') }),
    cpuMs() {
      // Fields after the command name: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    },
    async stop() {
      process.off('exit', orphan);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/**
 * The src/main.ts of `commit` in a detached git worktree at `dir`, made on first use with this
 * checkout's node_modules: a bench runs an older commit's server beside this one's.
 */
/**
 * The src/main.ts of `commit`, in a worktree named `<prefix>-<hash>` in the temporary directory: by
 * its hash, since one named after `HEAD` or a branch would be reused once they move.
 */
export function commitMain(commit: string, prefix: string): { main: string; dir: string } {
  const hash = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short=12', `${commit}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  const dir = join(tmpdir(), `${prefix}-${hash}`);
  return { main: checkoutMain(hash, dir), dir };
}

export function checkoutMain(commit: string, dir: string): string {
  if (!existsSync(join(dir, 'src/main.ts')))
    execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', dir, commit], { stdio: 'inherit' });
  if (!existsSync(join(dir, 'node_modules')))
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(dir, 'node_modules'));
  return join(dir, 'src/main.ts');
}
