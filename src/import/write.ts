// Batched writes: each batch of up to 1,000 rows is one statement whose rows travel as one JSON
// parameter expanded by jsonb_populate_recordset (the table's own row type converts each value),
// never one statement per row. jsonb columns take the JSON value itself, arrays become arrays.
import { type RawBuilder, sql } from 'kysely';
import type { IdTable, Row, WriteContext } from './collection.ts';

const BATCH = 1000;

function batches(rows: Row[]): Row[][] {
  const result: Row[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) result.push(rows.slice(i, i + BATCH));
  return result;
}

// Table and column names are the importer's own constants, never the file's.
function insertSelect(table: string, columns: string[], batch: Row[]): RawBuilder<unknown> {
  const list = sql.join(columns.map((c) => sql.ref(c)));
  return sql`insert into ${sql.table(table)} (${list})
    select ${list} from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(batch)}::jsonb)`;
}

/**
 * Inserts rows or, when `key` already exists, replaces every given column; returns the keys of the
 * rows it wrote. With `keepEqual`, a stored row whose given columns already hold the file's values
 * is not written again (nor returned): its triggers and versions do not move.
 */
export async function upsertRows(
  ctx: WriteContext,
  table: string,
  rows: Row[],
  key = 'id',
  keepEqual = false,
): Promise<unknown[]> {
  const written: unknown[] = [];
  for (const batch of batches(rows)) {
    const columns = Object.keys(batch[0]);
    const others = columns.filter((c) => c !== key);
    const updates = others.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`);
    const of = (row: string) => sql.join(others.map((c) => sql.ref(`${row}.${c}`)));
    const changed = keepEqual ? sql`where (${of(table)}) is distinct from (${of('excluded')})` : sql``;
    const { rows: done } = await sql<{ key: unknown }>`${insertSelect(table, columns, batch)}
      on conflict (${sql.ref(key)}) do update set ${sql.join(updates)} ${changed}
      returning ${sql.ref(key)} as key`.execute(ctx.tx);
    for (const row of done) written.push(row.key);
    ctx.advance(batch.length);
  }
  return written;
}

/** Inserts link rows (their owners' old links were deleted first). */
export async function insertRows(ctx: WriteContext, table: string, rows: Row[]): Promise<void> {
  for (const batch of batches(rows)) await insertSelect(table, Object.keys(batch[0]), batch).execute(ctx.tx);
}

/** Deletes the rows of `table` whose `column` is one of `ids`. */
export async function deleteWhereIn(ctx: WriteContext, table: string, column: string, ids: number[]) {
  if (ids.length)
    await sql`delete from ${sql.table(table)} where ${sql.ref(column)} = any(${ids})`.execute(ctx.tx);
}

/** Moves a table's identity sequence past its highest id, so later inserts without id never collide. */
export async function moveSequence(ctx: WriteContext, table: IdTable): Promise<void> {
  await sql`select setval(pg_get_serial_sequence(${table}, 'id'), greatest(max(id), 1))
    from ${sql.table(table)}`.execute(ctx.tx);
}
