// The running service: configuration -> database (migrated) -> app -> listen, and a
// graceful stop (stop accepting, finish requests in flight, close the database).
import type { FastifyInstance } from 'fastify';
import { type DemoFiscalProvider, demoFiscalProvider } from './admin/demo-fiscal-provider.ts';
import { claimDataDir } from './admin/embedded-owner.ts';
import { checkSecrets } from './admin/secret-check.ts';
import { buildApp } from './app.ts';
import { type Config, ConfigError } from './config.ts';
import { type DatabaseHandle, openDatabase } from './db/database.ts';
import { connectOrStop } from './db/first-connection.ts';
import { migrateFor } from './db/migrate.ts';
import { resolveSecrets } from './lib/secrets-store.ts';
import { startMenuBoundaryJob } from './modules/menu/boundary-job.ts';
import { startBackgroundJobs } from './modules/webhooks/background.ts';

/** How long a stop keeps connections open to answer their requests 503 (at most half the deadline). */
const DRAIN_MS = 1000;

/** After `ms`, or as soon as no connection is left open (clients closed theirs after a 503). */
async function drained(app: FastifyInstance, ms: number): Promise<void> {
  const until = Date.now() + ms;
  const open = () =>
    new Promise<number>((resolve) => app.server.getConnections((err, count) => resolve(err ? 0 : count)));
  while (Date.now() < until && (await open()) > 0) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, until - Date.now())));
  }
}

/** A HOST that resolves to no address (a typo) is a setting to fix, named as invalid values are. */
export function listenError(err: unknown, host: string): unknown {
  const { syscall, code } = err as NodeJS.ErrnoException;
  if (syscall !== 'getaddrinfo') return err;
  return new ConfigError(`HOST "${host}" does not resolve to an address (${code})`);
}

export type RunningServer = {
  app: FastifyInstance;
  database: DatabaseHandle;
  address: string;
  /** The demo's in-process fiscal simulator (started at start when the data is the demo's). */
  demoFiscalProvider: DemoFiscalProvider;
  stop(): Promise<void>;
};

type StartOptions = {
  /** Extra routes (tests: a deliberately slow route to check the graceful stop). */
  routes?: (app: FastifyInstance) => void;
};

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  // Embedded PGlite in DATA_DIR has one owner process: lock the folder first (src/admin/).
  const owner = await claimDataDir(config);
  let database: DatabaseHandle | undefined;
  let provider: DemoFiscalProvider | undefined;
  let built: FastifyInstance | undefined;
  try {
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: config.databasePoolSize,
      pooler: config.databasePooler,
      statementTimeoutMs: config.databaseStatementTimeoutMs,
    });
    await connectOrStop(database, 'DATABASE_URL', config.databaseUrl);
    await migrateFor(config, database);
    const { secrets, unsaved } = resolveSecrets(config);
    await checkSecrets(database.db, config, secrets, unsaved);
    const app = await buildApp({ config, database, db: database.db, secrets });
    built = app;
    options.routes?.(app);
    // On the demo data without FISCAL_PROVIDER_URL, before the first request can query a provider.
    provider = demoFiscalProvider(app.ctx, (url) =>
      app.log.info(
        { fiscal_simulator: url },
        'demo data: the NF-e detail queries the in-process fiscal simulator',
      ),
    );
    await provider.start();
    const demoProvider = provider;
    const address = await app.listen({ port: config.port, host: config.host }).catch((err) => {
      throw listenError(err, config.host);
    });
    await owner?.serve({ config, db: database.db, secrets });
    // Webhook deliveries, the event purge and the menu's schedule boundaries; stopped before the
    // database closes.
    const jobs = startBackgroundJobs(app);
    const boundaries = startMenuBoundaryJob(database.db, (err) =>
      app.log.error({ err }, 'menu boundary job failed'),
    );
    const opened = database;
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        // SHUTDOWN_TIMEOUT_MS: requests still in flight then are cut, their database work with
        // them (database.ts cut: never committed, rolled back); stopOnSignals exits soon after.
        const cut = setTimeout(() => {
          app.server.closeAllConnections();
          void opened.cut();
        }, config.shutdownTimeoutMs);
        const closing = (async () => {
          // Draining (src/http/draining.ts): connections stay open a moment and every request on
          // them is answered 503 with Connection: close, rather than closed under a request that
          // a client has just sent on an idle keep-alive connection.
          app.drain();
          await drained(app, Math.min(DRAIN_MS, config.shutdownTimeoutMs / 2));
          // A keep-alive connection whose request was in flight at close() stays open after its
          // response (up to the keep-alive timeout): close each one as soon as it turns idle.
          const idle = setInterval(() => app.server.closeIdleConnections(), 100);
          await app.close().finally(() => clearInterval(idle));
        })();
        await Promise.all([jobs.stop(), boundaries.stop(), closing.finally(() => clearTimeout(cut))]);
        // After the app: requests in flight may still have been waiting for it.
        await demoProvider.close();
        await owner?.closeChannel();
        await opened.close();
        owner?.release();
      })();
      return stopping;
    };
    return { app, database, address, demoFiscalProvider: demoProvider, stop };
  } catch (err) {
    // The app holds what its onClose hooks let go of (the Redis client, which reconnects
    // forever): a start that fails after building it (a port in use) must still exit.
    await built?.close();
    await provider?.close();
    await owner?.closeChannel();
    await database?.close();
    owner?.release();
    throw err;
  }
}

/**
 * SIGTERM/SIGINT: stop gracefully and exit 0 (1 if the stop failed, or had not ended a second
 * after SHUTDOWN_TIMEOUT_MS: a database that does not answer cannot hold the process). A signal
 * during the stop is logged and changes nothing (`npm start` and Ctrl-C: node gets the terminal's
 * SIGINT and npm's forwarded one); the deadline already bounds the stop.
 */
export function stopOnSignals(server: Pick<RunningServer, 'stop' | 'app'>, log: (msg: string) => void): void {
  let stopping = false;
  const onSignal = (signal: string) => {
    if (stopping) {
      log(`${signal} received: already stopping`);
      return;
    }
    stopping = true;
    log(`${signal} received: finishing requests in flight`);
    setTimeout(() => {
      log('shutdown deadline passed: exiting with work unfinished');
      process.exit(1);
    }, server.app.ctx.config.shutdownTimeoutMs + 1000).unref();
    server.stop().then(
      () => process.exit(0),
      (err) => {
        log(`stop failed: ${err}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
