// `comanda import`: checks the whole file, then writes it in one transaction. Every record is
// checked on its own first; then, inside the transaction, against the file and the database;
// any problem (or a database error while writing) rolls everything back.
import type { Db } from '../db/database.ts';
import { recordEvents } from '../modules/events/outbox.ts';
import type { IdTable, WriteContext } from './collection.ts';
import { emptyCounts, parseFile } from './collections.ts';
import { importEvents, storedNotes } from './events.ts';
import { Issues } from './issues.ts';
import { checkReferences, type Parsed } from './references.ts';
import { moveSequence } from './write.ts';

export { ImportError } from './issues.ts';

export type ImportProgress = { collection: string; done: number; total: number };

export type ImportOptions = {
  /** Encrypts brands' fiscal tokens (ctx.secrets.fiscalTokenKey). */
  fiscalTokenKey?: string;
  onProgress?: (progress: ImportProgress) => void;
};

export async function importData(db: Db, input: unknown, options: ImportOptions = {}) {
  const issues = new Issues();
  const parsed = parseFile(input, issues);
  issues.throwIfAny();
  const run = async (tx: Db) => {
    const transaction = tx as WriteContext['tx'];
    await checkReferences(transaction, parsed, issues);
    for (const { collection, records } of parsed) {
      if (records.length) await collection.verify?.(transaction, records, issues);
    }
    issues.throwIfAny();
    return writeAll(transaction, parsed, options);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

async function writeAll(tx: WriteContext['tx'], parsed: Parsed, options: ImportOptions) {
  const counts = emptyCounts();
  const written = new Set<IdTable>();
  const stored = await storedNotes(tx, parsed);
  for (const { collection, records } of parsed) {
    if (!records.length) continue;
    const progress = { collection: collection.name, done: 0, total: 0 };
    for (const { row } of records) {
      progress.total += collection.size(row);
      for (const own of collection.ids(row)) written.add(own.table);
    }
    const advance = (rows: number) => {
      progress.done += rows;
      options.onProgress?.({ ...progress });
    };
    Object.assign(
      counts,
      await collection.write({ tx, fiscalTokenKey: options.fiscalTokenKey, advance }, records),
    );
  }
  // OAuth clients are keyed by client_id: their ids always come from the sequence.
  for (const table of written)
    if (table !== 'oauth_clients') await moveSequence({ tx, advance: () => {} }, table);
  await recordEvents(tx, importEvents(parsed, stored));
  return counts;
}
