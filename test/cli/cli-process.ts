// Runs `node src/cli.ts ...` as a real child process with its own environment.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { CommandContext } from '../../src/admin/command-context.ts';
import { COMMANDS } from '../../src/admin/commands.ts';
import { world } from '../import/world.ts';
import { testConfig } from '../support/app.ts';
import { createTestDatabase, pgliteTemplate, testDatabaseUrl } from '../support/database.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

export type CliResult = { code: number | null; stdout: string; stderr: string };

/** The environment of a CLI process: embedded PGlite in `dataDir` unless overridden. */
export function cliEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
  };
  return { ...env, ...extra };
}

/** `cwd`: the working directory (its `.env` is loaded); the repository by default. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  cwd = ROOT,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [`${ROOT}src/cli.ts`, ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

export function tempDir(t: { after(fn: () => void): void }, prefix = 'comanda-cli-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A data folder holding the migrated test template, so the first command skips initdb (seconds).
 * On a PostgreSQL test run the template is not PGlite: the folder starts empty.
 */
export async function seededDataDir(t: { after(fn: () => void): void }): Promise<string> {
  const dir = tempDir(t);
  if (testDatabaseUrl) return dir;
  const pglite = await PGlite.create({ dataDir: dir, loadDataDir: await pgliteTemplate() });
  await pglite.close();
  return dir;
}

export type Served = {
  child: ChildProcess;
  address: string;
  first: Record<string, any>;
  stop(): Promise<number | null>;
};

/** Starts `serve --json` and waits for its first line. */
export function serve(env: NodeJS.ProcessEnv, args: string[] = []): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['src/cli.ts', 'serve', '--json', ...args], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n').find((l) => l.startsWith('{"listening"'));
      if (!line) return;
      const first = JSON.parse(line);
      resolve({
        child,
        address: first.listening,
        first,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
}

/** The administrative commands' context on a fresh database holding the import world. */
export async function commandWorld(t: { after(fn: () => unknown): void }) {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const config = testConfig();
  const ctx: CommandContext = {
    db: database.db,
    config,
    secrets: { sessionSecret: config.restaurantSessionSecret!, fiscalTokenKey: config.fiscalTokenKey! },
  };
  await COMMANDS.import(ctx, { data: world() });
  return { database, config, ctx };
}
