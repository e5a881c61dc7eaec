// A unit of work that joins the transaction it is given, or runs in one of its own: a write that
// another write wraps (an Idempotency-Key's stored answer, src/http/idempotency.ts) commits with it.
import type { Db } from './database.ts';

export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
