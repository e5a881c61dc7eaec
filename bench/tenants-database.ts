// The database of the tenants scenario on the PostgreSQL server of DATABASE_URL. Seeding is kept
// as a template database named after the generator's fingerprint (tenants-data.ts, the migrations):
// a run copies it (CREATE DATABASE ... TEMPLATE, a file copy) into `comanda_tenants`, so every run
// starts from the same rows, and seeds only when the generator or the migrations changed.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { holdRunLock } from './bench-database.ts';
import { issueCredentials } from './credentials.ts';
import { BENCH_SECRETS } from './server-env.ts';
import { closest, seedTenants, type Tenant, tenants } from './tenants-data.ts';

const RUN_DB = 'comanda_tenants';
const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/test';

function fingerprint(): string {
  const migrations = readdirSync(new URL('../src/db/migrations/', import.meta.url)).sort();
  return createHash('sha256')
    .update(readFileSync(new URL('./tenants-data.ts', import.meta.url)))
    .update(JSON.stringify(migrations))
    .digest('hex')
    .slice(0, 12);
}

const urlOf = (base: string, database: string) => {
  const url = new URL(base);
  url.pathname = `/${database}`;
  return url.toString();
};

/** A fresh copy of the seeded tenants database; seeds the template first when it is missing. */
export async function tenantsDatabase(
  fiscalTokenKey: string,
  log: (line: string) => void,
): Promise<{ url: string; seededMs?: number }> {
  const base = process.env.DATABASE_URL?.startsWith('postgres') ? process.env.DATABASE_URL : DEFAULT_URL;
  await holdRunLock(base, RUN_DB);
  const template = `comanda_tenants_tpl_${fingerprint()}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    const exists = async (name: string) =>
      ((await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0) > 0;
    let seededMs: number | undefined;
    if (!(await exists(template))) {
      const started = performance.now();
      const seeding = `${template}_seeding`;
      await admin.query(`drop database if exists ${seeding}`);
      await admin.query(`create database ${seeding}`);
      const handle = await openDatabase({ databaseUrl: urlOf(base, seeding) });
      await migrate(handle.db);
      await seedTenants(handle.db, fiscalTokenKey);
      await handle.close();
      // Named as the template only once complete: an interrupted seeding is never reused.
      await admin.query(`alter database ${seeding} rename to ${template}`);
      seededMs = performance.now() - started;
      log(`seeded ${template} in ${(seededMs / 1000).toFixed(1)} s`);
      const old = await admin.query(
        `select datname from pg_database where datname like 'comanda_tenants_tpl_%' and datname <> $1`,
        [template],
      );
      for (const { datname } of old.rows) await admin.query(`drop database if exists ${datname}`);
    }
    await admin.query(`drop database if exists ${RUN_DB} with (force)`);
    await admin.query(`create database ${RUN_DB} template ${template}`);
    return { url: urlOf(base, RUN_DB), seededMs };
  } finally {
    await admin.end();
  }
}

/**
 * The tenants database, fresh (tenantsDatabase), with one credential for each of its first `count`
 * restaurants (`all`): where every tenants benchmark starts. `hot`: the one closest to 150 products.
 */
export async function tenantsWithCredentials(count: number, log: (line: string) => void) {
  const { url, seededMs } = await tenantsDatabase(BENCH_SECRETS.fiscalTokenKey, log);
  const all = tenants().slice(0, count);
  const handle = await openDatabase({ databaseUrl: url });
  const credentials = await issueCredentials(
    handle.db,
    all.map((t) => t.id),
  );
  await handle.close();
  const authorization = (tenant: Tenant) => credentials.get(tenant.id)!.authorization;
  return { url, seededMs, all, credentials, authorization, hot: closest(all, 150) };
}
