// The running service: configuration -> database (migrated) -> app -> listen, and a
// graceful stop (stop accepting, finish requests in flight, close the database).
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { resolveSecrets } from './lib/secrets-store.ts';

export type RunningServer = {
  app: FastifyInstance;
  database: DatabaseHandle;
  address: string;
  stop(): Promise<void>;
};

export async function startServer(config: Config): Promise<RunningServer> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrate(database.db);
  const app = await buildApp({ config, database, db: database.db, secrets: resolveSecrets(config) });
  const address = await app.listen({ port: config.port, host: config.host });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      await app.close();
      await database.close();
    })();
    return stopping;
  };
  return { app, database, address, stop };
}

/** SIGTERM/SIGINT: stop gracefully and exit 0 (1 if the stop itself failed). */
export function stopOnSignals(server: Pick<RunningServer, 'stop'>, log: (msg: string) => void): void {
  const onSignal = (signal: string) => {
    log(`${signal} received: finishing requests in flight`);
    server.stop().then(
      () => process.exit(0),
      (err) => {
        log(`stop failed: ${err}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
