// Builds the Fastify app from the modules, without listening (tests use inject()).
import Fastify, { type FastifyInstance } from 'fastify';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { installAuthentication } from './http/authenticate.ts';
import { installCompression } from './http/compression.ts';
import { installConditionalRequests } from './http/conditional.ts';
import { type ConnectionLimits, connectionOptions } from './http/connection-limits.ts';
import { installDocs } from './http/docs.ts';
import { installDraining } from './http/draining.ts';
import { installErrorHandler } from './http/error-handler.ts';
import { installHealth } from './http/health.ts';
import { loggerOptions } from './http/logger.ts';
import { installMetrics } from './http/metrics.ts';
import { installRateLimits } from './http/rate-limit.ts';
import { installRequestCoding } from './http/request-coding.ts';
import { installUtf8Bodies } from './http/request-utf8.ts';
import { installSecurityHeaders } from './http/security-headers.ts';
import { validatorCompiler } from './http/validation.ts';
import { meRoutes } from './modules/auth/me.ts';
import { authRoutes } from './modules/auth/routes.ts';
import { catalogRoutes } from './modules/catalog/index.ts';
import { consoleRoutes } from './modules/console/index.ts';
import { eventRoutes } from './modules/events/routes.ts';
import { financialRoutes } from './modules/financial/routes.ts';
import { menuRoutes } from './modules/menu/routes.ts';
import { nfeRoutes } from './modules/nfe/routes.ts';
import { webhookRoutes } from './modules/webhooks/routes.ts';

type BuildOptions = {
  logStream?: NodeJS.WritableStream;
  connectionLimits?: Partial<ConnectionLimits>;
};

/** A hop count trusts the nearest n hops (Fastify does the same at run time; its types take no number). */
function trustedProxies(setting: Config['trustProxy']) {
  return typeof setting === 'number' ? (_address: string, hop: number) => hop < setting : setting;
}

export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(ctx.config.logLevel, options.logStream),
    bodyLimit: 1024 * 1024,
    // Keep-alive sockets are closed on shutdown so close() does not wait for idle clients.
    forceCloseConnections: 'idle',
    // Fastify's own 503 while closing lacks Retry-After: http/draining.ts answers instead.
    return503OnClosing: false,
    requestIdHeader: false,
    // request.ip and request.protocol come from X-Forwarded-* only when the peer is a trusted proxy.
    trustProxy: trustedProxies(ctx.config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true },
    ...connectionOptions(options.connectionLimits),
  });
  app.decorate('ctx', ctx);
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandler(app);
  installRequestCoding(app);
  installUtf8Bodies(app);
  installDraining(app);
  installSecurityHeaders(app);
  installRateLimits(app, ctx);
  installAuthentication(app, ctx.db, ctx.secrets.sessionSecret);
  // Compression first: a tagged route's last onSend then sees the coding its body is sent in.
  await installCompression(app, ctx.config.cacheBytes.compressedMenus);
  installConditionalRequests(app, ctx.secrets.sessionSecret);
  installHealth(app, ctx.database);
  installMetrics(app, ctx.database);
  await installDocs(app, ctx.config);
  await app.register(authRoutes);
  meRoutes(app);
  await app.register(catalogRoutes);
  await app.register(financialRoutes);
  await app.register(menuRoutes);
  await app.register(nfeRoutes);
  await app.register(consoleRoutes);
  await app.register(eventRoutes);
  await app.register(webhookRoutes);
  return app;
}
