// Runs a command from a CLI process. PostgreSQL (or memory://): on a connection of its own.
// Embedded PGlite in DATA_DIR: when a server holds the folder's lock, over its admin channel;
// otherwise this process takes the lock, opens the folder, runs the command and lets go.
// Two processes never open the same PGlite folder.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { connectOrStop } from '../db/first-connection.ts';
import { migrateFor } from '../db/migrate.ts';
import type { ImportProgress } from '../import/import.ts';
import { makeDataDir } from '../lib/data-dir.ts';
import { type LockInfo, tryLock } from '../lib/lock-file.ts';
import { resolveSecrets } from '../lib/secrets-store.ts';
import { tokenPath } from './admin-channel.ts';
import { CommandError, commandNamed } from './commands.ts';
import { RemoteFailure } from './failure.ts';
import { checkSecrets } from './secret-check.ts';

type RunOptions = {
  onProgress?: (progress: ImportProgress) => void;
  /** Told once when another process holds DATA_DIR and this one waits for it. */
  onWait?: (holder: LockInfo) => void;
  waitMs?: number;
};

class ChannelUnavailable extends Error {}

export async function runCommand(
  config: Config,
  name: string,
  args: Record<string, unknown>,
  options: RunOptions = {},
) {
  if (config.databaseUrl) return runHere(config, name, args, options);
  makeDataDir(config.dataDir);
  const deadline = Date.now() + (options.waitMs ?? 30_000);
  let told = false;
  for (;;) {
    const lock = await tryLock(config.dataDir, 'cli', name);
    if ('held' in lock) {
      try {
        return await runHere(config, name, args, options);
      } finally {
        lock.held.release();
      }
    }
    const { holder } = lock;
    if (holder.role === 'server' && holder.socket) {
      try {
        return await callServer(config.dataDir, holder.socket, name, args, options);
      } catch (err) {
        if (!(err instanceof ChannelUnavailable)) throw err;
      }
    }
    if (Date.now() > deadline) throw new CommandError(busyMessage(holder, config.dataDir));
    if (!told) options.onWait?.(holder);
    told = true;
    await sleep(100);
  }
}

function busyMessage(holder: LockInfo, dataDir: string): string {
  if (holder.role === 'server') {
    return `the comanda server (pid ${holder.pid}) holds ${dataDir} but its admin channel does not answer; try again, or stop that server`;
  }
  return `another comanda command (${holder.command ?? 'unknown'}, pid ${holder.pid}) is still using ${dataDir}; try again when it finishes`;
}

async function runHere(config: Config, name: string, args: Record<string, unknown>, options: RunOptions) {
  const command = commandNamed(name);
  if (!command) throw new CommandError(`unknown command ${name}`);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 2,
    pooler: config.databasePooler,
  });
  try {
    await connectOrStop(database, 'DATABASE_URL', config.databaseUrl);
    const applied = await migrateFor(config, database);
    const { secrets, unsaved } = resolveSecrets(config);
    await checkSecrets(database.db, config, secrets, unsaved);
    const ctx = {
      db: database.db,
      config,
      secrets,
      applied,
      onProgress: options.onProgress,
    };
    return await command(ctx, args);
  } finally {
    await database.close();
  }
}

function callServer(dataDir: string, socketPath: string, name: string, args: unknown, options: RunOptions) {
  let token: string;
  try {
    token = readFileSync(tokenPath(dataDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Promise.reject(new ChannelUnavailable());
    throw new CommandError(`cannot read ${tokenPath(dataDir)}: run comanda as the user that runs the server`);
  }
  return new Promise<unknown>((resolve, reject) => {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const path = `/commands/${encodeURIComponent(name)}`;
    const req = request({ socketPath, method: 'POST', path, headers }, (res) => {
      if (res.statusCode === 401) return reject(new ChannelUnavailable()); // a restarted server's new token
      if (res.statusCode !== 200)
        return reject(new Error(`the server refused the command (HTTP ${res.statusCode})`));
      let buffered = '';
      let answered = false;
      const take = (line: string) => {
        if (!line) return;
        const message = JSON.parse(line);
        if (message.progress) {
          options.onProgress?.(message.progress);
        } else if ('result' in message) {
          answered = true;
          resolve(message.result);
        } else if (message.error) {
          answered = true;
          reject(new RemoteFailure(message.error));
        }
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const lines = (buffered + chunk).split('\n');
        buffered = lines.pop() ?? '';
        lines.forEach(take);
      });
      res.on('end', () => {
        take(buffered);
        if (!answered) reject(new Error('the server closed the admin channel before answering'));
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? new ChannelUnavailable() : err);
    });
    req.end(JSON.stringify(args));
  });
}
