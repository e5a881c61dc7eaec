// Product write SQL (the reads are in read-repository.ts). Every query is scoped by the
// restaurant; writes lock rows in id order so two writers over overlapping products queue instead
// of deadlocking, and a batch of any size runs the same few statements (rows travel as one jsonb
// parameter, never one statement per product).
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { FISCAL_COLUMNS } from '../../db/fiscal-columns.ts';
import { isoText } from '../../db/iso-instant.ts';
import { type Prepared, prepared } from '../../db/prepared.ts';
import { eventCtes, type NewEvent } from '../events/outbox.ts';
import type { ProductValues } from './edit-input.ts';
import { type Change, type Destination, positionAfter } from './edit-plan.ts';
import {
  FLAG_FIELDS,
  MONEY_FIELDS,
  PRODUCT_COLUMNS,
  PRODUCT_SELECTIONS,
  type ProductRow,
  selectList,
} from './product-map.ts';

/** Columns an edit may write, with their SQL types: the whitelist of names spliced into SQL. */
const WRITABLE: Record<string, string> = {
  product_category_id: 'integer',
  brand_id: 'integer',
  position: 'integer',
  name: 'text',
  description: 'text',
  ...Object.fromEntries(MONEY_FIELDS.map((c) => [c, 'numeric'])),
  ...Object.fromEntries(FLAG_FIELDS.map((c) => [c, 'boolean'])),
  ...Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, 'text'])),
};
const quote = (c: string) => `"${c}"`;

const lockRows = prepared<ProductRow>(
  `select ${selectList(PRODUCT_COLUMNS, 'products')} from products
   where restaurant_id = $1 and id = any($2::integer[]) and removed_at is null
   order by id for no key update`,
);

/** Locks the live products among `ids` (in id order) and returns them (a statement prepared once: every edit runs it). */
export async function lockProducts(db: Db, restaurantId: number, ids: number[]): Promise<ProductRow[]> {
  return (await lockRows(db, [restaurantId, ids])).rows;
}

/**
 * Locks the non-removed categories among `ids` (in id order), then reads their last positions.
 * The lock serialises position allocation; the positions are read by a second statement because
 * under READ COMMITTED only a new statement sees what the writer we waited for committed.
 */
export async function lockDestinations(
  db: Db,
  restaurantId: number,
  ids: number[],
): Promise<Map<number, Destination>> {
  const categories = await db
    .selectFrom('product_categories')
    .select(['id', 'brand_id'])
    .where('restaurant_id', '=', restaurantId)
    .where(sql<boolean>`id = any(${ids}::integer[])`)
    .where('removed_at', 'is', null)
    .orderBy('id')
    .forNoKeyUpdate()
    .execute();
  if (!categories.length) return new Map();
  const last = await db
    .selectFrom('products')
    .select(['product_category_id', (eb) => eb.fn.max('position').as('last_position')])
    .where('restaurant_id', '=', restaurantId)
    .where(sql<boolean>`product_category_id = any(${categories.map((c) => c.id)}::integer[])`)
    .groupBy('product_category_id')
    .execute();
  const lastOf = new Map(last.map((r) => [r.product_category_id, r.last_position]));
  return new Map(
    categories.map((c) => [c.id, { brand_id: c.brand_id, last_position: lastOf.get(c.id) ?? 0 }]),
  );
}

export async function insertProduct(
  db: Db,
  restaurantId: number,
  values: ProductValues,
  destination: Destination,
): Promise<ProductRow> {
  return (await db
    .insertInto('products')
    .values({
      ...values,
      restaurant_id: restaurantId,
      brand_id: destination.brand_id,
      position: positionAfter(destination.last_position),
    })
    .returning(PRODUCT_SELECTIONS)
    .executeTakeFirstOrThrow()) as ProductRow;
}

type History = {
  operation: 'create' | 'edit' | 'bulk' | 'availability';
  actor: Record<string, unknown>;
  entries: { product_id: number; changes: Change[] }[];
};

/** The product_changes rows of `history`, as a select for an insert. */
function historyRows(restaurantId: number, { operation, actor, entries }: History) {
  return sql`
    select ${restaurantId}, v.product_id, ${operation}, ${JSON.stringify(actor)}::jsonb, v.changes
    from jsonb_to_recordset(${JSON.stringify(entries)}::jsonb) as v(product_id integer, changes jsonb)`;
}

/**
 * Writes `columns` of the given rows (computed from the locked rows, so the values are current),
 * their history and their events (src/modules/events/outbox.ts), in one statement (one round
 * trip). Each history entry is also its product's product.updated event (productEvents' data,
 * built here from the same rows, so the changes travel once); `otherEvents` (the menu.updated)
 * follow them. Moves updated_at strictly forward:
 * clock_timestamp(), not the transaction start, and at least 1 ms after the previous version. Only
 * the columns the batch changes travel and are set. Returns each row's new version: every other
 * column is what the caller sent (no trigger or default touches a product's columns on update), so
 * the rows are not read back.
 */
export async function updateProducts(
  db: Db,
  restaurantId: number,
  rows: ProductRow[],
  columns: string[],
  history: History,
  otherEvents: NewEvent[],
): Promise<{ id: number; updated_at: string }[]> {
  const written = columns.filter((c) => Object.hasOwn(WRITABLE, c));
  const set = sql.raw(written.map((c) => `${quote(c)} = v.${quote(c)}, `).join(''));
  const recordType = sql.raw(['id integer', ...written.map((c) => `${quote(c)} ${WRITABLE[c]}`)].join(', '));
  // Only these keys of each row, in this order (JSON.stringify's list of properties).
  const values = JSON.stringify(rows, ['id', ...written]);
  const statement = sql<{ id: number; updated_at: string }>`
    with updated as (
      update products as p set ${set}
        updated_at = greatest(clock_timestamp(), p.updated_at + interval '1 millisecond')
      from jsonb_to_recordset(${values}::jsonb) as v(${recordType})
      where p.restaurant_id = ${restaurantId} and p.id = v.id
      returning p.id, p.updated_at
    ), history as (
      select v.product_id, v.changes
      from jsonb_to_recordset(${JSON.stringify(history.entries)}::jsonb) as v(product_id integer, changes jsonb)
    ), recorded as (
      insert into product_changes (restaurant_id, product_id, operation, actor, changes)
      select ${restaurantId}, h.product_id, ${history.operation}, ${JSON.stringify(history.actor)}::jsonb, h.changes
      from history h
    ), ${eventCtes(
      otherEvents,
      sql`select ${restaurantId}::integer, 'product.updated'::text, jsonb_build_object('product_id', h.product_id,
        'operation', ${history.operation}::text, 'changes', h.changes) from history h`,
    )}
    select id, ${sql.raw(isoText('updated_at'))} as updated_at from updated`.compile(db);
  const run = editStatement(statement.sql);
  const { rows: updated } = run
    ? await run(db, statement.parameters)
    : await db.executeQuery<{ id: number; updated_at: string }>(statement);
  return updated;
}

/**
 * The edit statement's text depends only on the columns written (and whether the write has
 * events): each of the first EDIT_SHAPES texts is prepared on each pool connection
 * (db/prepared.ts), so PostgreSQL parses and plans it once instead of on every edit; a text
 * beyond them runs unprepared.
 */
const EDIT_SHAPES = 64;
const editStatements = new Map<string, Prepared<{ id: number; updated_at: string }>>();

function editStatement(text: string): Prepared<{ id: number; updated_at: string }> | undefined {
  let run = editStatements.get(text);
  if (!run && editStatements.size < EDIT_SHAPES) {
    run = prepared(text);
    editStatements.set(text, run);
  }
  return run;
}

/** Records a product's creation (an edit records its history with its update). */
export async function insertChanges(db: Db, restaurantId: number, history: History): Promise<void> {
  await sql`
    insert into product_changes (restaurant_id, product_id, operation, actor, changes)
    ${historyRows(restaurantId, history)}`.execute(db);
}
