// `comanda import`: checks the whole file, then writes it in one transaction. Every record is
// checked on its own, then against the file and the database, all in one pass so that every
// problem is reported at once; any problem (or a database error while writing) rolls everything
// back. `checkImport` runs the same checks and writes nothing.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { recordEvents } from '../modules/events/outbox.ts';
import { updateRestaurants } from './catalog.ts';
import type { IdTable, Row, WriteContext } from './collection.ts';
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

/** The transaction-local marks of the version triggers (migrations 0009, 0010, 0011, 0015). */
const QUEUED = ['catalog', 'cash_flows', 'nfe', 'events'].map((v) => `comanda.${v}_queued_`);

/**
 * Locks, in id order, every stored restaurant row the import will update: those it changes
 * (`changed`) and those whose version a trigger bumps at commit (a write of the restaurant marked
 * it). Taken last, after every other write but the events', whose restaurants are among them or
 * inserted by the import (rows no other transaction can hold): the deferred bumps then update rows
 * held already, in whatever order they were queued, so two imports of several restaurants wait
 * for each other instead of deadlocking. Until then the import holds no restaurant row, so a write
 * of a restaurant (its row updated last, by the bumps at its commit) never waits for the import
 * while the import waits for one of its rows.
 */
async function lockRestaurants(tx: WriteContext['tx'], parsed: Parsed, changed: Row[]) {
  const ids = new Set<number>();
  for (const { collection, records } of parsed)
    for (const { row } of records)
      for (const ref of [...collection.ids(row), ...(collection.refs?.(row) ?? [])])
        if (ref.table === 'restaurants') ids.add(ref.id as number);
  if (!ids.size) return;
  const queued = sql.join(
    QUEUED.map((mark) => sql`current_setting(${mark} || id, true) is not distinct from 'yes'`),
    sql` or `,
  );
  await sql`select id from restaurants where id = any(${[...ids]}::integer[])
    and (id = any(${changed.map((row) => row.id)}::integer[]) or ${queued})
    order by id for no key update`.execute(tx);
}

async function writeAll(tx: WriteContext['tx'], parsed: Parsed, options: ImportOptions) {
  await lockProducts(tx, parsed);
  const counts = emptyCounts();
  const written = new Set<IdTable>();
  const changed = new Map<string, Set<number>>();
  const menus = new Set<number>();
  const restaurants: Row[] = [];
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
        { tx, fiscalTokenKey: options.fiscalTokenKey, advance, changed, menus, restaurants },
        records,
      ),
    );
  }
  // OAuth clients are keyed by client_id: their ids always come from the sequence.
  for (const table of written)
    if (table !== 'oauth_clients') await moveSequence({ tx, advance: () => {} }, table);
  await lockRestaurants(tx, parsed, restaurants);
  await updateRestaurants({ tx, advance: () => {}, menus }, restaurants);
  await recordEvents(tx, importEvents(parsed, stored, { changed, menus }));
  return counts;
}
