// An import that creates or changes a product records it in the product history as the API's
// writes do (catalog's insertChanges): a new product as `create` with every write field, a changed
// one as `edit` with the fields that differ; an unchanged product records nothing. The actor is
// the import (the history shows `credential: { kind: "import" }`).
import { sql, type Transaction } from 'kysely';
import { FISCAL_COLUMNS } from '../db/fiscal-columns.ts';
import { isoText } from '../db/iso-instant.ts';
import { FLAG_FIELDS, MONEY_FIELDS } from '../db/product-columns.ts';
import type { Database } from '../db/types.ts';
import type { Change, ChangeValue } from '../modules/catalog/edit-plan.ts';
import { insertChanges } from '../modules/catalog/product-repository.ts';
import type { Row } from './collection.ts';

/** The write fields of a product as the history names them (fiscal ones as `fiscal_info.<name>`). */
const FIELDS = ['product_category_id', 'name', 'description', ...MONEY_FIELDS, ...FLAG_FIELDS] as const;

const IMPORT_ACTOR = { kind: 'import' };

type Stored = Record<string, unknown> & { id: number };

/**
 * The stored products among `ids`, locked in id order as the product routes lock them: a product
 * write that commits while the import runs is then either seen here or waits for the import,
 * never overwritten unseen (with an earlier updated_at, no history and no menu.updated).
 */
export function readStoredProducts(tx: Transaction<Database>, ids: number[]): Promise<Stored[]> {
  return tx
    .selectFrom('products')
    .select([
      'id',
      ...FIELDS,
      ...FISCAL_COLUMNS,
      sql<string>`${sql.raw(isoText('created_at'))}`.as('created_at'),
      sql<string>`${sql.raw(isoText('updated_at'))}`.as('updated_at'),
    ])
    .where(sql<boolean>`id = any(${ids}::integer[])`)
    .orderBy('id')
    .forNoKeyUpdate()
    .execute() as Promise<Stored[]>;
}

function changesOf(before: Stored | undefined, after: Row): Change[] {
  const changes: Change[] = [];
  // Stored and imported values are text, numbers, booleans or null (the history's values).
  const compare = (field: string, from: unknown, to: unknown) => {
    if (before && from === to) return;
    changes.push({ field, from: before ? (from as ChangeValue) : null, to: to as ChangeValue });
  };
  for (const field of FIELDS) compare(field, before?.[field], after[field]);
  for (const column of FISCAL_COLUMNS)
    compare(`fiscal_info.${column}`, before?.[column], after[column] ?? null);
  return changes;
}

/**
 * The instants of the written products, set in place before they are written. A new product takes
 * the file's, else the import's time. A stored one keeps its created_at unless the file gives one,
 * and its updated_at never moves back and moves forward when the import changes the product
 * (`changed`: its row or links), so expected_updated_at (optimistic concurrency) holds only if
 * every change moves it: a changed product takes the file's instant (else the import's time) when
 * later than the stored one, else 1 ms past it; an unchanged one keeps the later of the file's and
 * its own, its own when the file gives none (it is then not written at all).
 */
export function stampInstants(before: Stored[], written: Row[], changed: Set<number>, now: string): void {
  const stored = new Map(before.map((row) => [row.id, row]));
  for (const row of written) {
    const previous = stored.get(row.id);
    row.created_at ??= previous?.created_at ?? now;
    if (!previous) {
      row.updated_at ??= now;
      continue;
    }
    const moves = changed.has(row.id);
    const given: string = row.updated_at ?? (moves ? now : previous.updated_at);
    const floor = Date.parse(previous.updated_at as string) + (moves ? 1 : 0);
    row.updated_at = Date.parse(given) < floor ? new Date(floor).toISOString() : given;
  }
}

/** Records the history of the written products; `before` is what was stored before the write. */
export async function recordImportHistory(tx: Transaction<Database>, before: Stored[], written: Row[]) {
  const stored = new Map(before.map((row) => [row.id, row]));
  const byRestaurant = new Map<number, { create: Row[]; edit: Row[] }>();
  for (const row of written) {
    const previous = stored.get(row.id);
    const changes = changesOf(previous, row);
    if (!changes.length) continue;
    const group = byRestaurant.get(row.restaurant_id) ?? { create: [], edit: [] };
    byRestaurant.set(row.restaurant_id, group);
    group[previous ? 'edit' : 'create'].push({ product_id: row.id, changes });
  }
  for (const [restaurantId, group] of byRestaurant) {
    for (const operation of ['create', 'edit'] as const) {
      const entries = group[operation] as { product_id: number; changes: Change[] }[];
      if (entries.length) await insertChanges(tx, restaurantId, { operation, actor: IMPORT_ACTOR, entries });
    }
  }
}
