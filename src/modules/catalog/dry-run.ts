// `?dry_run=true` on single and bulk edits: the body checks of the write, then planEdits (the
// same locks, the same 404/409 checks, in the same order) inside a transaction that is rolled
// back, so the errors are exactly the real write's and nothing can be written, even if the
// planning ever learns to write.
import type { Db } from '../../db/database.ts';
import { type EditItem, type EditOperation, type EditPlan, planEdits } from './apply-edits.ts';
import { mapProduct } from './product-map.ts';
import { bulkEdits, singleEdit } from './product-service.ts';
import type { BulkInput, EditInput } from './schemas.ts';

class Rollback extends Error {
  readonly plans: EditPlan[];
  constructor(plans: EditPlan[]) {
    super('dry run: rolled back');
    this.plans = plans;
  }
}

async function planAndRollBack(
  db: Db,
  restaurantId: number,
  items: EditItem[],
  operation: EditOperation,
): Promise<EditPlan[]> {
  try {
    await db.transaction().execute(async (trx) => {
      throw new Rollback(await planEdits(trx, restaurantId, items, operation));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.plans;
    throw error;
  }
  throw new Error('unreachable: the dry-run transaction always rolls back');
}

function preview({ current, next, changes }: EditPlan) {
  return {
    id: current.id,
    current: mapProduct(current, { alias: true }),
    proposed: mapProduct(next, { alias: true }),
    changes,
    expected_updated_at: current.updated_at,
  };
}

async function dryRun(db: Db, restaurantId: number, items: EditItem[], operation: EditOperation) {
  const plans = await planAndRollBack(db, restaurantId, items, operation);
  return { dry_run: true as const, products: plans.map(preview) };
}

export async function previewEdit(db: Db, restaurantId: number, id: number, body: EditInput) {
  return dryRun(db, restaurantId, [singleEdit(id, body)], 'edit');
}

export async function previewBulkEdit(db: Db, restaurantId: number, body: BulkInput) {
  return dryRun(db, restaurantId, bulkEdits(body), 'bulk');
}
