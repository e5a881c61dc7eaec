// A fresh, migrated database per test file. PGlite: loaded from a migrated template dump
// cached under node_modules/.cache (initdb + migrations run once per migration set and
// src/db/event-scopes.ts), as a plain tar: unpacking a gzip of it cost every test file about 0.1 s of CPU.
// PostgreSQL (DATABASE_URL set): a database of its own, created here and dropped afterwards.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { parseConfig } from '../../src/config.ts';
import { type DatabaseHandle, isPostgresUrl, openDatabase, PGLITE_PARSERS } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';

const MIGRATIONS = new URL('../../src/db/migrations/', import.meta.url);
/** Written into the database by migrate() (src/db/event-type-scopes.ts): part of the template. */
const EVENT_SCOPES = new URL('../../src/db/event-scopes.ts', import.meta.url);
const CACHE = new URL('../../node_modules/.cache/comanda/', import.meta.url);

function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS).sort())
    hash.update(file).update(readFileSync(new URL(file, MIGRATIONS)));
  hash.update(readFileSync(EVENT_SCOPES));
  return hash.digest('hex').slice(0, 16);
}

/** The migrated PGlite data folder as a tar, to load with `PGlite.create({ loadDataDir })`. */
export async function pgliteTemplate(): Promise<Blob> {
  const file = new URL(`template-${migrationsHash()}.tar`, CACHE);
  try {
    return new Blob([readFileSync(file)]);
  } catch {}
  const pglite = await PGlite.create({ parsers: PGLITE_PARSERS });
  const handle = await openDatabase({ pglite });
  await migrate(handle.db);
  // No test creates a database: without the two template databases the folder is a third smaller,
  // and every test file unpacks it.
  await pglite.query(
    `update pg_database set datistemplate = false where datname in ('template0', 'template1')`,
  );
  for (const name of ['template0', 'template1']) await pglite.query(`drop database ${name}`);
  const dump = await pglite.dumpDataDir('none');
  await handle.close();
  mkdirSync(CACHE, { recursive: true });
  const tmp = new URL(`${file.pathname}.${process.pid}.tmp`, 'file://');
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file);
  return dump;
}

export const testDatabaseUrl = isPostgresUrl(process.env.DATABASE_URL) ? process.env.DATABASE_URL : undefined;
/**
 * The options of a test of the embedded database alone (CLI processes on a DATA_DIR of their own,
 * whatever DATABASE_URL says): it runs when the suite runs on PGlite, and skips on PostgreSQL,
 * where it would start the same processes on the same embedded database again (.ci/run runs the
 * suite on PGlite first).
 */
export const embeddedOnly = {
  skip: testDatabaseUrl ? 'the embedded database alone: the suite run on PGlite runs it' : false,
};
/** DATABASE_POOLER=transaction: the PostgreSQL tests run through PgBouncer (see .ci/run). */
export const testPooler = parseConfig(process.env).databasePooler;

export type TestDatabase = DatabaseHandle & { url: string };

export async function createTestDatabase(): Promise<TestDatabase> {
  if (!testDatabaseUrl) {
    const pglite = await PGlite.create({ loadDataDir: await pgliteTemplate(), parsers: PGLITE_PARSERS });
    return { ...(await openDatabase({ pglite })), url: 'memory://' };
  }
  const name = `comanda_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({ databaseUrl: url.toString(), pooler: testPooler });
  await migrate(handle.db);
  return {
    ...handle,
    url: url.toString(),
    async close() {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: testDatabaseUrl });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}
