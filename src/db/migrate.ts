// Applies src/db/migrations/*.ts in name order with Kysely's Migrator, in one transaction that
// first takes a transaction-level advisory lock: several instances starting at once apply each
// migration exactly once, a migration failing midway leaves nothing applied, and the lock ends
// with the transaction, on the server connection that took it, even through PgBouncer. After them,
// in the same transaction, the event types' read scopes are written from the code
// (event-type-scopes.ts, migration 0022).
import { readdir } from 'node:fs/promises';
import { sql } from 'kysely';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Config } from '../config.ts';
import { type DatabaseHandle, type Db, openDatabase } from './database.ts';
import { syncEventTypeScopes } from './event-type-scopes.ts';
import { connectOrStop } from './first-connection.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

const provider: MigrationProvider = {
  async getMigrations() {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.ts')).sort();
    const migrations: Record<string, Migration> = {};
    for (const file of files) {
      migrations[file.replace(/\.ts$/, '')] = await import(new URL(file, MIGRATIONS_DIR).href);
    }
    return migrations;
  },
};

/** The migrations' advisory lock (Kysely's own id), and how long an instance waits for it. */
const LOCK_ID = '3853314791062309107';
const LOCK_WAIT_MS = 60 * 60 * 1000;

export async function migrate(db: Db): Promise<string[]> {
  if (db.isTransaction) return migrateIn(db);
  return db.transaction().execute(migrateIn);
}

async function migrateIn(trx: Db): Promise<string[]> {
  // Before the Migrator creates its tables. Kysely's PostgreSQL lock is a session's: taken
  // outside this transaction through a transaction pooler, it stays on whichever server connection
  // served it, and the next instance waits for it; database.ts gives the Migrator no lock of its own.
  await sql`select set_config('lock_timeout', ${String(LOCK_WAIT_MS)}, true), pg_advisory_xact_lock(${sql.lit(LOCK_ID)}::bigint)`.execute(
    trx,
  );
  const { error, results } = await new Migrator({ db: trx, provider }).migrateToLatest();
  if (error) throw error;
  // What migration 0022's triggers read: written from the code, not frozen in a migration.
  await syncEventTypeScopes(trx);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Migrates through MIGRATION_DATABASE_URL when set (a direct connection past the pooler), else `database`. */
export async function migrateFor(config: Config, database: DatabaseHandle): Promise<string[]> {
  if (!config.migrationDatabaseUrl) return migrate(database.db);
  const direct = await openDatabase({ databaseUrl: config.migrationDatabaseUrl, poolSize: 1 });
  try {
    await connectOrStop(direct, 'MIGRATION_DATABASE_URL', config.migrationDatabaseUrl);
    return await migrate(direct.db);
  } finally {
    await direct.close();
  }
}
