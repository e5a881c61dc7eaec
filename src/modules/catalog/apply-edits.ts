// The one write path of every edit (single, bulk, availability): one transaction, a constant
// number of statements whatever the batch size. Lock and read all products, check them in
// memory, then at most one statement that updates them and records their history and events.
// Anything wrong writes nothing.
// A dry run (dry-run.ts) runs the same planEdits and rolls back.
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { errors, type FieldError } from '../../http/errors.ts';
import { menuEvents } from '../events/product-events.ts';
import type { Edit } from './edit-input.ts';
import { type Change, type Destination, planEdit } from './edit-plan.ts';
import type { ProductRow } from './product-map.ts';
import { lockDestinations, lockProducts, updateProducts } from './product-repository.ts';

export type EditItem = { id: number; edit: Edit };
export type EditOperation = 'edit' | 'bulk' | 'availability';

/** The columns a set of changes writes: a move also writes the position and the brand. */
function columnsOf(changes: Change[]): string[] {
  const columns = new Set<string>();
  for (const { field } of changes) {
    if (field === 'product_category_id') columns.add('position').add('brand_id');
    columns.add(field.replace(/^fiscal_info\./, ''));
  }
  return [...columns];
}

const fieldAt = (operation: EditOperation, index: number, field: string) =>
  operation === 'bulk' ? `[${index}].${field}` : field;

function rejectMissing(items: EditItem[], operation: EditOperation, locked: Map<number, ProductRow>): void {
  const missing = items.flatMap((item, index) =>
    locked.has(item.id) ? [] : [{ field: fieldAt(operation, index, 'id'), message: 'product not found' }],
  );
  // A single edit names its product in the path: the body has nothing to point at.
  if (missing.length) throw errors.productNotFound(operation === 'bulk' ? missing : []);
}

function rejectMissingCategories(
  items: EditItem[],
  operation: EditOperation,
  destinations: Map<number, Destination>,
): void {
  const missing: FieldError[] = items.flatMap((item, index) => {
    const categoryId = item.edit.patch.product_category_id;
    return categoryId === undefined || destinations.has(categoryId)
      ? []
      : [{ field: fieldAt(operation, index, 'product_category_id'), message: 'category not found' }];
  });
  if (missing.length) throw errors.productCategoryNotFound(missing);
}

/** Every object whose expected_updated_at is not the locked row's version, as one 409. */
function rejectStale(items: EditItem[], locked: Map<number, ProductRow>): void {
  const conflicts = items.flatMap((item, index) => {
    const current = locked.get(item.id)!.updated_at;
    const expected = item.edit.expected;
    if (!expected || (expected.exact && expected.millis === Date.parse(current))) return [];
    return [{ index, id: item.id, current_updated_at: current }];
  });
  if (conflicts.length) throw errors.productUpdateConflict(conflicts);
}

/** What one object of an edit would do: the locked row, the row after the edit, the real changes. */
export type EditPlan = { current: ProductRow; next: ProductRow; changes: Change[] };

/**
 * Locks the products (and any destination category), runs every check of the write and plans
 * each edit in memory. Writes nothing: the real write and the dry run both start here.
 */
export async function planEdits(
  trx: Db,
  restaurantId: number,
  items: EditItem[],
  operation: EditOperation,
): Promise<EditPlan[]> {
  const rows = await lockProducts(
    trx,
    restaurantId,
    items.map((i) => i.id),
  );
  const locked = new Map(rows.map((r) => [r.id, r]));
  rejectMissing(items, operation, locked);
  const categoryIds = [...new Set(items.flatMap((i) => i.edit.patch.product_category_id ?? []))];
  const destinations = categoryIds.length
    ? await lockDestinations(trx, restaurantId, categoryIds)
    : new Map<number, Destination>();
  rejectMissingCategories(items, operation, destinations);
  rejectStale(items, locked);
  return items.map((item) => {
    const current = locked.get(item.id)!;
    return { current, ...planEdit(current, item.edit, destinations) };
  });
}

export function applyEdits(
  db: Db,
  restaurantId: number,
  items: EditItem[],
  operation: EditOperation,
  actor: Record<string, unknown>,
): Promise<ProductRow[]> {
  return inTransaction(db, async (trx) => {
    const plans = await planEdits(trx, restaurantId, items, operation);
    const changed = plans.filter((plan) => plan.changes.length > 0);
    // A write equal to the stored values is accepted but moves no version and records no history.
    if (!changed.length) return plans.map((plan) => plan.current);
    const columns = columnsOf(changed.flatMap((c) => c.changes));
    const entries = changed.map((c) => ({ product_id: c.next.id, changes: c.changes }));
    const updated = await updateProducts(
      trx,
      restaurantId,
      changed.map((c) => c.next),
      columns,
      { operation, actor, entries },
      // The same changes the history records, as events of the same statement (the outbox): its
      // product.updated events are made from the history rows, the menu.updated here.
      menuEvents(restaurantId, entries),
    );
    const versions = new Map(updated.map((row) => [row.id, row.updated_at]));
    // plan.next is the plan's own copy of the row: it takes its new version in place.
    return plans.map((plan) => {
      const version = versions.get(plan.current.id);
      if (!version) return plan.current;
      plan.next.updated_at = version;
      return plan.next;
    });
  });
}
