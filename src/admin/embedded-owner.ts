// A server on embedded PGlite in DATA_DIR owns the folder: it holds the lock while it runs
// (waiting for a CLI command that holds it to finish) and serves the admin channel, so other
// `comanda` processes reach the database through it. PostgreSQL and memory:// need neither.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.ts';
import { makeDataDir } from '../lib/data-dir.ts';
import { tryLock } from '../lib/lock-file.ts';
import { type AdminChannel, startAdminChannel } from './admin-channel.ts';
import { type CommandContext, CommandError } from './commands.ts';

type EmbeddedOwner = {
  serve(ctx: Omit<CommandContext, 'onProgress'>): Promise<void>;
  closeChannel(): Promise<void>;
  release(): void;
};

export async function claimDataDir(config: Config, waitMs = 30_000): Promise<EmbeddedOwner | null> {
  if (config.databaseUrl) return null;
  const dataDir = config.dataDir;
  makeDataDir(dataDir);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = await tryLock(dataDir, 'server', 'serve');
    if ('held' in lock) {
      let channel: AdminChannel | undefined;
      return {
        async serve(ctx) {
          channel = await startAdminChannel(dataDir, ctx);
          lock.held.update({ socket: channel.socketPath });
        },
        async closeChannel() {
          await channel?.close();
        },
        release: () => lock.held.release(),
      };
    }
    const { holder } = lock;
    if (holder.role === 'server') {
      throw new CommandError(`another comanda server (pid ${holder.pid}) already serves ${dataDir}`);
    }
    if (Date.now() > deadline) {
      throw new CommandError(
        `a comanda command (${holder.command}, pid ${holder.pid}) is still using ${dataDir}`,
      );
    }
    await sleep(100);
  }
}
