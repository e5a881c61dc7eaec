// Every environment variable, parsed once into one typed object.
// An invalid value stops the process with a message naming the variable.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import pg from 'pg';

export type Config = {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** 'transaction' when PostgreSQL is reached through PgBouncer (or alike) in transaction mode. */
  databasePooler: 'transaction' | undefined;
  /** A direct connection for migrations when DATABASE_URL goes through a pooler (optional). */
  migrationDatabaseUrl: string | undefined;
  /** PostgreSQL connections of this instance (the pool's size). */
  databasePoolSize: number;
  /** Each statement's budget on PostgreSQL; locks wait at most 80% of it; the pool wait as long. */
  databaseStatementTimeoutMs: number;
  /** How long a stop waits for requests in flight before it cuts them and exits. */
  shutdownTimeoutMs: number;
  dataDir: string;
  redisUrl: string | undefined;
  fiscalProviderUrl: string;
  /** FISCAL_PROVIDER_URL is set; when not, a server on the demo data serves the demo's simulator. */
  fiscalProviderUrlSet: boolean;
  fiscalTimeoutMs: number;
  fiscalTokenKey: string | undefined;
  nfeDetailWorkers: number;
  accessTokenTtlSeconds: number;
  refreshIdleTtlSeconds: number;
  refreshAbsoluteTtlSeconds: number;
  restaurantSessionSecret: string | undefined;
  rateLimitPerMinute: number;
  tokenRateLimitPerMinute: number;
  logLevel: string;
  /** How long a write's answer is kept for its Idempotency-Key. */
  idempotencyTtlSeconds: number;
  /** Fastify's trustProxy: false, a hop count, or the proxies' addresses and CIDRs. */
  trustProxy: false | number | string[];
  /** Days an event (and a webhook delivery) is kept before the periodic purge removes it. */
  eventsRetentionDays: number;
  /** WEBHOOK_ALLOW_PRIVATE=1: http and loopback/private receivers allowed (development, tests). */
  webhookAllowPrivate: boolean;
  /** Each per-instance cache's budget in bytes (least recently used entries go first past it). */
  cacheBytes: CacheBytes;
};

export type CacheBytes = {
  menu: number;
  listing: number;
  cashFlows: number;
  nfeList: number;
  eventFeed: number;
  /** Gzipped menus past their head, per ETag (src/http/compression.ts). */
  compressedMenus: number;
  /** Each restaurant's schedule boundaries, which a menu's ETag needs (menu/boundary-cache.ts). */
  menuBoundaries: number;
};

const MIB = 1024 * 1024;

/** The caches' budgets, given in MiB. */
function cacheBytes(env: Env): CacheBytes {
  const mib = (name: string, fallback: number) => integer(env, name, fallback, 0, 65536) * MIB;
  return {
    menu: mib('MENU_CACHE_MB', 64),
    listing: mib('LISTING_CACHE_MB', 32),
    cashFlows: mib('CASH_FLOW_CACHE_MB', 8),
    nfeList: mib('NFE_LIST_CACHE_MB', 16),
    eventFeed: mib('EVENT_FEED_CACHE_MB', 8),
    compressedMenus: mib('COMPRESSED_MENU_CACHE_MB', 8),
    menuBoundaries: mib('MENU_BOUNDARY_CACHE_MB', 2),
  };
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** A value as an error shows it: quoted, its control characters escaped, so the error is one line. */
const quoted = (value: string) =>
  JSON.stringify(value).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got ${quoted(raw)})`);
  }
  return Number(raw);
}

function flag(env: Env, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (raw === '1') return true;
  throw new ConfigError(`${name} must be 1 or 0 (got ${quoted(raw)})`);
}

/** A connection string as an error may show it: nothing up to its last '@', no password=. */
export function shownUrl(raw: string): string {
  return (raw.split('@').pop() as string).replace(/(password\s*=\s*)('[^']*'|\S+)/gi, '$1***');
}

function url(env: Env, name: string, protocols: string[], fallback?: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (got ${quoted(shownUrl(raw))})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
  }
  return raw.replace(/\/+$/, '');
}

function secret(env: Env, name: string): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
  return raw;
}

const TRUST_PROXY_HELP =
  "TRUST_PROXY must be a hop count (1, 2...) or the proxies' addresses or CIDRs, comma-separated";

/** Which peers may say, in X-Forwarded-*, the client's address and protocol (see deployment docs). */
function trustProxy(env: Env): false | number | string[] {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === '0' || raw === 'false') return false;
  if (/^\d+$/.test(raw)) {
    if (Number(raw) > 10) throw new ConfigError(`${TRUST_PROXY_HELP} (got ${quoted(raw)}: at most 10 hops)`);
    return Number(raw);
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
    if (!family || !bitsOk || extra !== undefined) {
      throw new ConfigError(`${TRUST_PROXY_HELP} (got ${quoted(entry)})`);
    }
  }
  return entries;
}

function pooler(env: Env): 'transaction' | undefined {
  const raw = env.DATABASE_POOLER;
  if (raw === undefined || raw === '' || raw === 'none') return undefined;
  if (raw === 'transaction') return raw;
  throw new ConfigError(`DATABASE_POOLER must be "transaction" or "none" (got ${quoted(raw)})`);
}

function databaseUrl(env: Env): string | undefined {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'memory://') return raw;
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    // pg reads the string only when it first connects, and then says only "Invalid URL".
    try {
      new pg.Client({ connectionString: raw });
    } catch (err) {
      throw new ConfigError(
        `DATABASE_URL cannot be read (${(err as Error).message}; percent-encode a password's / # ? @ %)`,
      );
    }
    return raw;
  }
  throw new ConfigError(`DATABASE_URL must be a postgres:// URL or memory:// (got ${quoted(shownUrl(raw))})`);
}

/** HOST: an IP address, or a host name (resolved when the server listens). */
function host(env: Env): string {
  const raw = env.HOST;
  if (raw === undefined || raw === '') return '127.0.0.1';
  const label = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;
  if (isIP(raw) || (raw.length <= 253 && raw.split('.').every((part) => label.test(part)))) return raw;
  throw new ConfigError(`HOST must be an IP address or a host name (got ${quoted(raw)})`);
}

/** One worker per core beyond the event loop's, at least one and at most four. */
const defaultDetailWorkers = () => Math.max(1, Math.min(4, availableParallelism() - 1));

export function parseConfig(env: Env = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${quoted(logLevel)})`);
  }
  return {
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: host(env),
    databaseUrl: databaseUrl(env),
    databasePooler: pooler(env),
    migrationDatabaseUrl: url(env, 'MIGRATION_DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 100, 600000),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10000, 0, 600000),
    dataDir: env.DATA_DIR || './data',
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    fiscalProviderUrl: url(env, 'FISCAL_PROVIDER_URL', ['http:', 'https:'], 'https://api.focusnfe.com.br')!,
    fiscalProviderUrlSet: Boolean(env.FISCAL_PROVIDER_URL),
    fiscalTimeoutMs: integer(env, 'FISCAL_TIMEOUT_MS', 15000, 1, 15000),
    fiscalTokenKey: secret(env, 'FISCAL_TOKEN_KEY'),
    nfeDetailWorkers: integer(env, 'NFE_DETAIL_WORKERS', defaultDetailWorkers(), 1, 32),
    accessTokenTtlSeconds: integer(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 1, 86400),
    refreshIdleTtlSeconds: integer(env, 'REFRESH_IDLE_TTL_SECONDS', 2592000, 1, 31536000),
    refreshAbsoluteTtlSeconds: integer(env, 'REFRESH_ABSOLUTE_TTL_SECONDS', 7776000, 1, 63072000),
    restaurantSessionSecret: secret(env, 'RESTAURANT_SESSION_SECRET'),
    rateLimitPerMinute: integer(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1000000),
    tokenRateLimitPerMinute: integer(env, 'TOKEN_RATE_LIMIT_PER_MINUTE', 60, 1, 1000000),
    logLevel,
    trustProxy: trustProxy(env),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 86400, 60, 2592000),
    eventsRetentionDays: integer(env, 'EVENTS_RETENTION_DAYS', 30, 1, 3650),
    webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE'),
    cacheBytes: cacheBytes(env),
  };
}
