// Builds the Fastify app from the modules, without listening (tests use inject()).
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { DatabaseHandle, Db } from './db/database.ts';
import { installAuthentication } from './http/authenticate.ts';
import { installErrorHandler } from './http/error-handler.ts';
import { installHealth } from './http/health.ts';
import { loggerOptions } from './http/logger.ts';
import { installMetrics } from './http/metrics.ts';
import { validatorCompiler } from './http/validation.ts';

export type AppContext = {
  config: Config;
  database: DatabaseHandle;
  db: Db;
  /** Secrets resolved at start (from the environment or DATA_DIR), see secrets-store.ts. */
  secrets: { sessionSecret: string; fiscalTokenKey: string };
};

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}

export type BuildOptions = { logStream?: NodeJS.WritableStream };

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(ctx.config.logLevel, options.logStream),
    bodyLimit: 1024 * 1024,
    // Keep-alive sockets are closed on shutdown so close() does not wait for idle clients.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    requestIdHeader: false,
    routerOptions: { ignoreTrailingSlash: true },
  });
  app.decorate('ctx', ctx);
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandler(app);
  installAuthentication(app, ctx.db, ctx.secrets.sessionSecret);
  installHealth(app, ctx.database);
  installMetrics(app, ctx.database);
  return app;
}
