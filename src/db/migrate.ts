// Applies src/db/migrations/*.ts in name order with Kysely's Migrator (which takes a lock,
// so several instances starting at once apply each migration exactly once).
import { readdir } from 'node:fs/promises';
import { type Migration, type MigrationProvider, Migrator } from 'kysely/migration';
import type { Config } from '../config.ts';
import { type DatabaseHandle, type Db, openDatabase } from './database.ts';

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

export async function migrate(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Migrates through MIGRATION_DATABASE_URL when set (a direct connection past the pooler), else `database`. */
export async function migrateFor(config: Config, database: DatabaseHandle): Promise<string[]> {
  if (!config.migrationDatabaseUrl) return migrate(database.db);
  const direct = await openDatabase({ databaseUrl: config.migrationDatabaseUrl, poolSize: 1 });
  try {
    return await migrate(direct.db);
  } finally {
    await direct.close();
  }
}
