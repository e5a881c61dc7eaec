// `comanda import`: checks the whole file, then writes it in one transaction. Every record is
// checked on its own, then against the file and the database, all in one pass so that every
// problem is reported at once; any problem (or a database error while writing) rolls everything
// back. `checkImport` runs the same checks and writes nothing.
import { sql } from 'kysely';
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

type ImportOptions = {
  /** Encrypts brands' fiscal tokens (ctx.secrets.fiscalTokenKey). */
  fiscalTokenKey?: string;
  onProgress?: (progress: ImportProgress) => void;
};

/** Every check of the file, against itself and the database, in one pass (nothing is written). */
async function checkAll(tx: WriteContext['tx'], parsed: Parsed, issues: Issues) {
  await checkReferences(tx, parsed, issues);
  for (const { collection, records } of parsed) {
    if (records.length) await collection.verify?.(tx, records, issues);
  }
}

export async function importData(db: Db, input: unknown, options: ImportOptions = {}) {
  const issues = new Issues();
  const parsed = parseFile(input, issues);
  const run = async (tx: Db) => {
    const transaction = tx as WriteContext['tx'];
    await checkAll(transaction, parsed, issues);
    issues.throwIfAny();
    return writeAll(transaction, parsed, options);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

/** `comanda import --check`: every problem of the file, none written; an empty list when it would load. */
export async function checkImport(db: Db, input: unknown): Promise<string[]> {
  const issues = new Issues();
  const parsed = parseFile(input, issues);
  const run = (tx: Db) => checkAll(tx as WriteContext['tx'], parsed, issues);
  await (db.isTransaction ? run(db) : db.transaction().execute(run));
  return issues.list;
}

/**
 * Locks, in id order, the stored products the import may write: those of the file and those of its
 * categories (whose brand they follow), before any category is written. The product routes lock
 * the products, then the destination category (a move); an import that locked a category it
 * changes and then waited for a product would deadlock with a move into that category.
 */
async function lockProducts(tx: WriteContext['tx'], parsed: Parsed) {
  const ids = (name: string) =>
    parsed.find(({ collection }) => collection.name === name)?.records.map(({ row }) => row.id as number) ??
    [];
  const products = ids('products');
  const categories = ids('product_categories');
  if (!products.length && !categories.length) return;
  await sql`select id from products
    where id = any(${products}::integer[]) or product_category_id = any(${categories}::integer[])
    order by id for no key update`.execute(tx);
}

async function writeAll(tx: WriteContext['tx'], parsed: Parsed, options: ImportOptions) {
  await lockProducts(tx, parsed);
  const counts = emptyCounts();
  const written = new Set<IdTable>();
  const changed = new Map<string, Set<number>>();
  const menus = new Set<number>();
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
      await collection.write(
        { tx, fiscalTokenKey: options.fiscalTokenKey, advance, changed, menus },
        records,
      ),
    );
  }
  // OAuth clients are keyed by client_id: their ids always come from the sequence.
  for (const table of written)
    if (table !== 'oauth_clients') await moveSequence({ tx, advance: () => {} }, table);
  await recordEvents(tx, importEvents(parsed, stored, { changed, menus }));
  return counts;
}
