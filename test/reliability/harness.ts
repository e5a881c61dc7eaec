// Real server processes (`node src/main.ts`) on one PostgreSQL database and one Redis: start
// them on free ports, wait for /readyz, talk to them over HTTP with a time bound, seed them
// through `node src/cli.ts import`, and stop them (SIGTERM, then SIGKILL after a bound).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { freePort } from '../support/ports.ts';

export const ROOT = new URL('../../', import.meta.url).pathname;
type Hooks = { after(fn: () => unknown): void };

export const SECRETS = {
  RESTAURANT_SESSION_SECRET: 'reliability-session-secret-of-at-least-32-chars',
  FISCAL_TOKEN_KEY: 'reliability-fiscal-token-key-of-at-least-32-chars',
};

export function tempDir(t: Hooks, prefix = 'comanda-rel-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh, migrated database on the PostgreSQL server of `adminUrl`, dropped after the test. */
export async function freshDatabase(t: Hooks, adminUrl: string): Promise<string> {
  const name = `comanda_rel_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), poolSize: 1 });
  await migrate(handle.db);
  await handle.close();
  t.after(async () => {
    const cleanup = new pg.Client({ connectionString: adminUrl });
    await cleanup.connect().catch(() => undefined);
    await cleanup.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await cleanup.end().catch(() => undefined);
  });
  return url.toString();
}

export type HttpAnswer = { status: number; headers: Headers; text: string; json: any; ms: number };

/** One request with a hard time bound; a network failure is status 0 (never a thrown error). */
export async function http(url: string, init: RequestInit = {}, boundMs = 10_000): Promise<HttpAnswer> {
  const started = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(boundMs) });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, text, json, ms: performance.now() - started };
  } catch (error) {
    const timedOut = (error as Error).name === 'TimeoutError';
    return {
      status: timedOut ? -1 : 0,
      headers: new Headers(),
      text: String(error),
      json: undefined,
      ms: performance.now() - started,
    };
  }
}

export type Instance = {
  url: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited within `boundMs`. */
  stop(boundMs?: number): Promise<number | null>;
};

export async function startInstance(t: Hooks, env: Record<string, string>, port?: number): Promise<Instance> {
  const chosen = port ?? (await freePort());
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...SECRETS,
      ...env,
      PORT: String(chosen),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  const stop = async (boundMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  t.after(() => stop());
  const instance: Instance = { url: `http://127.0.0.1:${chosen}`, child, exited, output: () => output, stop };
  await waitReady(instance);
  return instance;
}

export async function waitReady(instance: Instance, boundMs = 30_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < boundMs) {
    if (instance.child.exitCode !== null) throw new Error(`the server exited: ${instance.output()}`);
    if ((await http(`${instance.url}/readyz`, {}, 2000)).status === 200) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server was not ready in ${boundMs} ms: ${instance.output()}`);
}

export type CliResult = { code: number | null; stdout: string; stderr: string };

export function startCli(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, ['src/cli.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', ...SECRETS, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<CliResult>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

export const cli = (args: string[], env: Record<string, string>) => startCli(args, env).done;

/** Writes the file and imports it with `comanda import --json`; throws with the CLI's words. */
export async function importFile(t: Hooks, databaseUrl: string, data: unknown): Promise<string> {
  const file = join(tempDir(t), 'import.json');
  writeFileSync(file, JSON.stringify(data));
  const result = await cli(['import', file, '--json'], { DATABASE_URL: databaseUrl });
  if (result.code !== 0) throw new Error(`import failed: ${result.stderr}`);
  return file;
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };

export async function exchangeKey(url: string, apiKey: string) {
  const answer = await http(`${url}/oauth/token`, {
    method: 'POST',
    headers: form,
    body: `grant_type=api_key&api_key=${apiKey}`,
  });
  if (answer.status !== 200) throw new Error(`exchange failed: ${answer.status} ${answer.text}`);
  return answer.json as { access_token: string; refresh_token: string };
}

export const refresh = (url: string, refreshToken: string) =>
  http(`${url}/oauth/token`, {
    method: 'POST',
    headers: form,
    body: `grant_type=refresh_token&refresh_token=${refreshToken}`,
  });

export const bearer = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
  ...extra,
});

export type RawAnswer = { status: number; headers: Record<string, string>; body: string } | { lost: string };

/**
 * One HTTP/1.1 connection held open by the test (a client's kept-alive connection): `send` writes
 * a request on it and resolves with the answer, or with `lost` when the socket ended without one.
 */
export async function keptAlive(url: string) {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffer = Buffer.alloc(0);
  let waiting: ((answer: RawAnswer) => void) | undefined;
  let ended: string | undefined;
  const settle = (answer: RawAnswer) => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(answer);
  };
  const parse = () => {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const [statusLine, ...lines] = buffer.subarray(0, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
      }),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (buffer.length < end + 4 + length) return;
    const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
    buffer = buffer.subarray(end + 4 + length);
    settle({ status: Number(statusLine.split(' ')[1]), headers, body });
  };
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    parse();
  });
  socket.on('error', (error) => {
    ended = (error as NodeJS.ErrnoException).code ?? error.message;
  });
  socket.on('close', () => {
    ended ??= 'closed';
    settle({ lost: ended });
  });
  return {
    send(path: string, headers: Record<string, string> = {}, method = 'GET', body = ''): Promise<RawAnswer> {
      if (ended) return Promise.resolve({ lost: `${ended} before the request was sent` });
      const length = body ? { 'content-length': String(Buffer.byteLength(body)) } : {};
      const head = Object.entries({ host: `${hostname}:${port}`, ...headers, ...length })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      return new Promise((resolve) => {
        waiting = resolve;
        socket.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`);
      });
    },
    /** Whether the server has ended the connection. */
    closed: () => ended !== undefined,
    destroy: () => socket.destroy(),
  };
}
