// A PostgreSQL backend that ends while the pool has lent its connection out (between two
// statements of a transaction, as a restart does) must fail that transaction, not the process:
// pg-pool takes its error listener off lent clients (src/db/database.ts adds one back).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.ts';
import { toAppError } from '../../src/http/error-handler.ts';
import { missingServices, SHARED_POSTGRES } from './services.ts';

const SKIP = await missingServices();

test('a connection ended inside a transaction fails the transaction with a 503, and the pool recovers', {
  skip: SKIP,
}, async (t) => {
  const handle = await openDatabase({ databaseUrl: SHARED_POSTGRES, poolSize: 2 });
  const admin = new pg.Client({ connectionString: SHARED_POSTGRES });
  await admin.connect();
  t.after(async () => {
    await admin.end();
    await handle.close();
  });
  const failure = await handle.db
    .transaction()
    .execute(async (tx) => {
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
      await admin.query('select pg_terminate_backend($1)', [rows[0].pid]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sql`select 1`.execute(tx);
    })
    .then(
      () => undefined,
      (error: Error) => error,
    );
  assert.ok(failure, 'the transaction did not fail');
  assert.equal(toAppError(failure as never).statusCode, 503);
  await handle.ping();
});
