// A unit of work that joins the transaction it is given, or runs in one of its own: a write that
// another write wraps (an Idempotency-Key's stored answer, src/http/idempotency.ts) commits with it.
// And reads that must agree with each other: one REPEATABLE READ READ ONLY snapshot, set at BEGIN
// (no session state, so it holds through PgBouncer's transaction mode).
import type { Db } from './database.ts';

export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** Runs `work` in one read-only snapshot: its first statement takes it, every later one reads it. */
export function inSnapshot<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(work);
}
