// One factory for both databases: PostgreSQL through a `pg` pool when DATABASE_URL is a
// postgres:// URL, embedded PGlite otherwise (DATA_DIR on disk, or memory://).
import { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  Kysely,
  PGliteDialect,
  PostgresAdapter,
  PostgresDialect,
  type PostgresDialectConfig,
} from 'kysely';
import pg from 'pg';
import { makeDataDir } from '../lib/data-dir.ts';
import { PreparingClient } from './prepared.ts';
import type { Database, Db } from './types.ts';

export type { Db };

export type DatabaseHandle = {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** The embedded instance, when kind is pglite. */
  pglite?: PGlite;
  ping(): Promise<void>;
  poolStats(): { total: number; idle: number; waiting: number };
  /**
   * A stop's deadline (server.ts): ends the work of the requests still in flight, so that none of
   * it commits after they were cut. PostgreSQL: their backends are terminated (the server rolls
   * their transactions back, a statement waiting on a lock included) and their connections closed,
   * so no COMMIT can follow; through a transaction pooler, only the connections are closed.
   * PGlite: nothing (the process exits a second later).
   */
  cut(): Promise<void>;
  close(): Promise<void>;
};

type DatabaseOptions = {
  databaseUrl?: string;
  dataDir?: string;
  /** An existing PGlite (tests load one from a migrated template). */
  pglite?: PGlite;
  poolSize?: number;
  /**
   * PostgreSQL only: statement_timeout of every connection (lock_timeout at 80% of it,
   * idle_in_transaction_session_timeout at twice it) and the longest wait for a pool connection.
   * Past it the statement is cancelled on the server and its transaction rolled back. Unset (the
   * CLI's long imports): no statement limit, a 5 s pool wait.
   */
  statementTimeoutMs?: number;
  /**
   * 'transaction': PostgreSQL is reached through a transaction pooler (PgBouncer), so nothing may
   * rely on a server connection's session: statements are not named (prepared.ts), and the budget
   * is set at the start of each transaction instead of once per connection.
   */
  pooler?: 'transaction';
};

const DATE_OID = 1082;
const INT8_OID = 20;
// Dates stay 'YYYY-MM-DD' text (a Date would move them through the local time zone);
// bigint counts fit a JS number; timestamptz values are the drivers' own Dates.
pg.types.setTypeParser(DATE_OID, (v) => v);
pg.types.setTypeParser(INT8_OID, (v) => Number(v));
export const PGLITE_PARSERS = { [DATE_OID]: (v: string) => v, [INT8_OID]: (v: string) => Number(v) };

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && (url.startsWith('postgres://') || url.startsWith('postgresql://'));
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  if (isPostgresUrl(options.databaseUrl)) return openPostgres(options.databaseUrl, options);
  const pglite = options.pglite ?? (await createPglite(options));
  const db = new Kysely<Database>({ dialect: new PGliteDialect({ pglite }) });
  return {
    db,
    kind: 'pglite',
    pglite,
    async ping() {
      await pglite.query('select 1');
    },
    poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
    async cut() {},
    async close() {
      // destroy() closes the PGlite instance too
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

async function createPglite(options: DatabaseOptions): Promise<PGlite> {
  const inMemory = options.databaseUrl === 'memory://';
  if (!inMemory) makeDataDir(options.dataDir ?? './data');
  return PGlite.create({
    dataDir: inMemory ? undefined : options.dataDir,
    parsers: PGLITE_PARSERS,
  });
}

function openPostgres(connectionString: string, options: DatabaseOptions): DatabaseHandle {
  const budget = options.statementTimeoutMs;
  const timeouts = budget && {
    statement_timeout: budget,
    lock_timeout: Math.floor(budget * 0.8),
    idle_in_transaction_session_timeout: budget * 2,
  };
  const pooled = options.pooler === 'transaction';
  const pool = new pg.Pool({
    connectionString,
    max: options.poolSize ?? 10,
    Client: pooled ? pg.Client : PreparingClient,
    connectionTimeoutMillis: budget ?? 5000,
    idleTimeoutMillis: 30000,
    ...(!pooled && timeouts),
  });
  // A dropped connection (the server restarted) must not crash the process: the pool
  // discards the client and the next checkout reconnects.
  pool.on('error', () => {});
  // pg-pool takes its error listener off a client while it is checked out: a backend ended
  // between two statements of a transaction (a restart) would be an unhandled 'error' that
  // kills the process. With this the next query on that client fails (503) and the pool drops it.
  pool.on('connect', (client) => client.on('error', () => {}));
  // pg sets processID (the backend's pid) but does not type it.
  const inUse = new Set<pg.PoolClient & { processID?: number | null }>();
  pool.on('acquire', (client) => inUse.add(client));
  pool.on('release', (_err, client) => inUse.delete(client));
  pool.on('remove', (client) => inUse.delete(client as pg.PoolClient));
  const dialect = pooled && timeouts ? new BudgetPerTransaction({ pool }, timeouts) : new Dialect({ pool });
  const db = new Kysely<Database>({ dialect });
  return {
    db,
    kind: 'postgres',
    async ping() {
      const client = await pool.connect();
      try {
        await client.query('select 1');
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    async cut() {
      const clients = [...inUse];
      // Behind a pooler a client's backend id is the pooler's own: never terminate by it.
      const pids = pooled ? [] : clients.flatMap((client) => client.processID ?? []);
      if (pids.length) await terminate(connectionString, pids).catch(() => {});
      for (const client of clients) client.connection.stream.destroy();
    },
    async close() {
      await db.destroy();
    },
  };
}

/** Terminates the backends `pids` over a connection of its own (the pool may be full), within a second. */
async function terminate(connectionString: string, pids: number[]): Promise<void> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 1000, query_timeout: 1000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select pg_terminate_backend(pid) from unnest($1::integer[]) as pid', [pids]);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * migrate.ts takes a transaction's advisory lock itself and hands the Migrator its transaction:
 * the Migrator's own lock (a session's pg_advisory_lock, let go by a later statement) is left out,
 * since through a transaction pooler the two statements may reach different server connections,
 * and a failed migration's transaction could not run the unlock at all.
 */
class MigrationLockInTransaction extends PostgresAdapter {
  override async acquireMigrationLock(): Promise<void> {}
  override async releaseMigrationLock(): Promise<void> {}
}

class Dialect extends PostgresDialect {
  override createAdapter() {
    return new MigrationLockInTransaction();
  }
}

/**
 * Behind a transaction pooler a connection's settings do not follow the client, so every
 * transaction sets its own budget (SET LOCAL, in the same round trip's transaction). Statements
 * outside a transaction (reads) take the role's or PgBouncer's limits (docs/operations.md).
 */
class BudgetPerTransaction extends Dialect {
  readonly #settings: CompiledQuery;
  constructor(config: PostgresDialectConfig, timeouts: Record<string, number>) {
    super(config);
    const sets = Object.entries(timeouts).map(([name, ms]) => `set_config('${name}', '${ms}', true)`);
    this.#settings = CompiledQuery.raw(`select ${sets.join(', ')}`);
  }
  override createDriver() {
    const driver = super.createDriver();
    const begin = driver.beginTransaction.bind(driver);
    driver.beginTransaction = async (connection, settings) => {
      await begin(connection, settings);
      await connection.executeQuery(this.#settings);
    };
    return driver;
  }
}
