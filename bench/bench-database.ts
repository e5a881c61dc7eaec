// The bench database, kept between runs so the seeded data sets can be reused: `comanda_bench` on
// the PostgreSQL server of DATABASE_URL (created when missing), or an embedded PGlite folder under
// .cache/ with --pglite. The bench process owns it while it seeds and probes; the server under test
// opens it afterwards (an embedded folder has one owner at a time).
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'kysely';
import pg from 'pg';
import { type DatabaseHandle, openDatabase, PGLITE_PARSERS } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';

const BENCH_DB = 'comanda_bench';
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const PGLITE_DIR = fileURLToPath(new URL('../.cache/comanda-bench/pglite', import.meta.url));

export type BenchDatabase = {
  handle: DatabaseHandle;
  /** What the server under test is given: DATABASE_URL, or DATA_DIR for the embedded folder. */
  serverEnv: { DATABASE_URL: string } | { DATA_DIR: string };
  version: string;
};

/**
 * One run at a time per bench database (`database`, a fixed name): a run drops or copies over what
 * the previous one left, so a second one at the same time would destroy the first's data. The lock
 * is an advisory lock of a session on `url`'s database: released when the process ends.
 */
export async function holdRunLock(url: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  client.on('error', () => {});
  const key = `hashtext('comanda bench ${database}')`;
  const { rows } = await client.query(`select pg_try_advisory_lock(${key}) as held`);
  if (!rows[0].held) {
    console.log(`another bench run uses ${database}: waiting for it to finish`);
    await client.query(`select pg_advisory_lock(${key})`);
  }
  // An open idle client must not keep the process alive once the run is over.
  (client as unknown as { connection: { stream: { unref(): void } } }).connection.stream.unref();
}

async function postgresUrl(): Promise<string> {
  const base = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : DEFAULT_URL;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const found = await admin.query('select 1 from pg_database where datname = $1', [BENCH_DB]);
  if (!found.rowCount) await admin.query(`create database ${BENCH_DB}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${BENCH_DB}`;
  return url.toString();
}

export async function openBenchDatabase(usePglite: boolean): Promise<BenchDatabase> {
  let handle: DatabaseHandle;
  let serverEnv: BenchDatabase['serverEnv'];
  if (usePglite) {
    mkdirSync(PGLITE_DIR, { recursive: true });
    handle = await openDatabase({
      pglite: await PGlite.create({ dataDir: PGLITE_DIR, parsers: PGLITE_PARSERS }),
    });
    serverEnv = { DATA_DIR: PGLITE_DIR };
  } else {
    const url = await postgresUrl();
    await holdRunLock(url, BENCH_DB);
    handle = await openDatabase({ databaseUrl: url });
    serverEnv = { DATABASE_URL: url };
  }
  await migrate(handle.db);
  const { rows } = await sql<{ version: string }>`select version()`.execute(handle.db);
  const version = rows[0].version.replace(/ on .*/, '').replace(/,.*/, '');
  return { handle, serverEnv, version: usePglite ? `PGlite (${version})` : version };
}

/**
 * Whether the database still runs statements of the server (requests a load window left in flight):
 * PostgreSQL's own view of its sessions. An embedded database runs inside the server: never busy here.
 */
export async function databaseMonitor(bench: BenchDatabase) {
  if (!('DATABASE_URL' in bench.serverEnv)) return { busy: async () => false, close: async () => {} };
  const client = new pg.Client({ connectionString: bench.serverEnv.DATABASE_URL });
  await client.connect();
  return {
    async busy() {
      const { rows } = await client.query(`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`);
      return rows[0].n > 0;
    },
    close: () => client.end(),
  };
}
