// What every request handler reaches through `app.ctx`: settings, database and secrets.
// Lives below app.ts so that modules and http/ import it without importing the app.
import type { Redis } from 'ioredis';
import type { Config } from './config.ts';
import type { DatabaseHandle, Db } from './db/database.ts';

export type AppContext = {
  config: Config;
  database: DatabaseHandle;
  db: Db;
  /** Secrets resolved at start (from the environment or DATA_DIR), see secrets-store.ts. */
  secrets: { sessionSecret: string; fiscalTokenKey: string };
  /**
   * Set while the demo's in-process fiscal simulator runs (src/admin/demo-fiscal-provider.ts): the
   * NF-e detail of a brand holding one of its tokens asks it; any other token goes to
   * config.fiscalProviderUrl.
   */
  fiscalSimulator?: { url: string; tokens: ReadonlySet<string> };
  /** Shared rate-limit counters; opened from REDIS_URL by installRateLimits when not given. */
  redis?: Redis;
};

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
