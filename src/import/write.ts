// Batched writes, and the reads that compare them with what is stored: each batch of up to 1,000
// rows is one statement whose rows travel as one JSON parameter expanded by jsonb_populate_recordset
// (the table's own row type converts each value), never one statement per row. jsonb columns take
// the JSON value itself, arrays become arrays.
import { type RawBuilder, sql } from 'kysely';
import type { IdTable, Row, WriteContext } from './collection.ts';

const BATCH = 1000;

function batches(rows: Row[]): Row[][] {
  const result: Row[][] = [];
  for (let i = 0; i < rows.length; i += BATCH) result.push(rows.slice(i, i + BATCH));
  return result;
}

// Table and column names are the importer's own constants, never the file's. The rows are
// inserted in the batch's order (with ordinality), so an upsert locks them in that order.
function insertSelect(table: string, columns: string[], batch: Row[]): RawBuilder<unknown> {
  const list = sql.join(columns.map((c) => sql.ref(c)));
  return sql`insert into ${sql.table(table)} (${list})
    select ${list} from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(batch)}::jsonb)
    with ordinality as f order by f.ordinality`;
}

/** `rows` in `key` order (ids as numbers, client_ids as text). */
function byKey(rows: Row[], key: string): Row[] {
  return rows.toSorted((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
}

/**
 * Inserts rows or, when `key` already exists, replaces every given column but `restaurant_id`;
 * returns the keys of the rows it wrote. With `keepEqual`, a stored row whose given columns already
 * hold the file's values is not written again (nor returned): its triggers and versions do not move.
 * The rows are written in `key` order, so two imports lock the rows they both change in one order
 * and never deadlock with each other.
 *
 * `restaurant_id` is left out of the update: a stored record never moves to another restaurant
 * (checkReferences refuses it), and a SET naming it, a key column (unique (restaurant_id, id),
 * which the foreign keys reference), makes the upsert lock the row FOR UPDATE instead of FOR NO
 * KEY UPDATE, which blocks every other writer's foreign-key check on the row (a product edited in
 * a category the import changes) until the import commits.
 */
export async function upsertRows(
  ctx: WriteContext,
  table: string,
  rows: Row[],
  key = 'id',
  keepEqual = false,
): Promise<unknown[]> {
  const written: unknown[] = [];
  for (const batch of batches(byKey(rows, key))) {
    const columns = Object.keys(batch[0]);
    const others = columns.filter((c) => c !== key && c !== 'restaurant_id');
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

/**
 * Inserts the rows whose `id` is not stored (nor inserted meanwhile by another transaction) and
 * returns their ids. A stored row is left as it is and not locked: the read skips it before the
 * insert could wait for a writer of it.
 */
export async function insertNew(ctx: WriteContext, table: string, rows: Row[]): Promise<number[]> {
  const inserted: number[] = [];
  for (const batch of batches(byKey(rows, 'id'))) {
    const list = sql.join(Object.keys(batch[0]).map((c) => sql.ref(c)));
    const { rows: done } = await sql<{ id: number }>`insert into ${sql.table(table)} (${list})
      select ${list} from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(batch)}::jsonb)
        with ordinality as f
      where not exists (select 1 from ${sql.table(table)} s where s.id = f.id)
      order by f.ordinality
      on conflict (id) do nothing returning id`.execute(ctx.tx);
    for (const row of done) inserted.push(row.id);
  }
  return inserted;
}

/**
 * What writing `rows` would change, read before the write: the ids of the rows that differ from
 * the stored ones in some column (of those given but `id` and `ignore`), each with those columns,
 * every one of them for a row not stored yet. Values compare as the table's types hold them (5
 * and "5.00", jsonb, instants).
 */
export async function differences(
  ctx: WriteContext,
  table: string,
  rows: Row[],
  ignore: string[] = [],
): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>();
  for (const batch of batches(rows)) {
    const columns = Object.keys(batch[0]).filter((c) => c !== 'id' && !ignore.includes(c));
    const of = (row: string) => columns.map((c) => sql.ref(`${row}.${c}`));
    const differing = columns.map(
      (c) =>
        sql`case when s.id is null or ${sql.ref(`s.${c}`)} is distinct from ${sql.ref(`f.${c}`)} then ${sql.lit(c)} end`,
    );
    const { rows: found } = await sql<{ id: number; changed: string[] }>`
      select f.id, to_json(array_remove(array[${sql.join(differing)}]::text[], null)) as changed
      from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(batch)}::jsonb) f
      left join ${sql.table(table)} s on s.id = f.id
      where s.id is null or (${sql.join(of('s'))}) is distinct from (${sql.join(of('f'))})`.execute(ctx.tx);
    for (const row of found) result.set(row.id, row.changed);
  }
  return result;
}

/** The stored `item`s of each of `owners` in `table`, in position order (then item), as the menu reads them. */
export async function storedLists(
  ctx: WriteContext,
  table: string,
  owner: string,
  item: string,
  owners: number[],
): Promise<Map<number, number[]>> {
  const result = new Map<number, number[]>();
  for (let i = 0; i < owners.length; i += BATCH) {
    const { rows } = await sql<{ owner: number; items: number[] }>`
      select ${sql.ref(owner)} as owner, json_agg(${sql.ref(item)} order by position, ${sql.ref(item)}) as items
      from ${sql.table(table)} where ${sql.ref(owner)} = any(${owners.slice(i, i + BATCH)}::integer[])
      group by ${sql.ref(owner)}`.execute(ctx.tx);
    for (const row of rows) result.set(row.owner, row.items);
  }
  return result;
}

/**
 * Locks, in id order, the stored rows of `table` that are among `ids` or whose `owner` column is
 * among `owners` (FOR NO KEY UPDATE, as the upserts lock them), before a collection writes them
 * in more than one statement or deletes some.
 */
export async function lockRows(
  ctx: WriteContext,
  table: string,
  owner: string,
  ids: number[],
  owners: number[],
) {
  if (!ids.length && !owners.length) return;
  await sql`select id from ${sql.table(table)}
    where id = any(${ids}::integer[]) or ${sql.ref(owner)} = any(${owners}::integer[])
    order by id for no key update`.execute(ctx.tx);
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
