// Product write use cases: load -> check -> write -> map. Rules of contract 2.1 and 4.4-4.7
// (the reads are in read-service.ts).
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { errors, type FieldError, summarize } from '../../http/errors.ts';
import { describePrincipal, type Principal } from '../../http/principal.ts';
import { recordEvents } from '../events/outbox.ts';
import { productEvents } from '../events/product-events.ts';
import { applyEdits, type EditItem } from './apply-edits.ts';
import { type Edit, hasChanges, parseCreate, parseEdit } from './edit-input.ts';
import { creationChanges } from './edit-plan.ts';
import { mapProduct, type ProductRow, productsJson } from './product-map.ts';
import * as repository from './product-repository.ts';
import type { AvailabilityInput, BulkInput, CreateInput, EditInput } from './schemas.ts';

function rejectInvalid(fields: FieldError[]): void {
  if (!fields.length) return;
  throw errors.invalidBody(`Invalid body: ${summarize(fields)}.`, fields);
}

const detail = (row: ProductRow) => mapProduct(row, { alias: true });

export async function createProduct(db: Db, restaurantId: number, body: CreateInput, principal: Principal) {
  const invalid: FieldError[] = [];
  const values = parseCreate(body, invalid);
  rejectInvalid(invalid);
  const row = await inTransaction(db, async (trx) => {
    const destinations = await repository.lockDestinations(trx, restaurantId, [values.product_category_id]);
    const destination = destinations.get(values.product_category_id);
    if (!destination)
      throw errors.productCategoryNotFound([{ field: 'product_category_id', message: 'category not found' }]);
    const created = await repository.insertProduct(trx, restaurantId, values, destination);
    const entries = [{ product_id: created.id, changes: creationChanges(values) }];
    await repository.insertChanges(trx, restaurantId, {
      operation: 'create',
      actor: describePrincipal(principal),
      entries,
    });
    await recordEvents(trx, productEvents(restaurantId, 'create', entries));
    return created;
  });
  return detail(row);
}

/** The checks of a single edit body that need no database (the dry run makes the same). */
export function singleEdit(id: number, body: EditInput): EditItem {
  const invalid: FieldError[] = [];
  const edit = parseEdit(body, '', invalid);
  rejectInvalid(invalid);
  if (!hasChanges(edit)) throw errors.productChangesRequired();
  return { id, edit };
}

export async function editProduct(
  db: Db,
  restaurantId: number,
  id: number,
  body: EditInput,
  principal: Principal,
) {
  const [row] = await applyEdits(
    db,
    restaurantId,
    [singleEdit(id, body)],
    'edit',
    describePrincipal(principal),
  );
  return detail(row);
}

/** The checks of a bulk body that need no database (the dry run makes the same). */
export function bulkEdits(body: BulkInput): EditItem[] {
  const seen = new Set<number>();
  const repeated = new Set<number>();
  for (const { id } of body) (seen.has(id) ? repeated : seen).add(id);
  if (repeated.size) throw errors.duplicateProductIds([...repeated]);
  const invalid: FieldError[] = [];
  const edits: Edit[] = body.map((item, index) => parseEdit(item, `[${index}].`, invalid));
  rejectInvalid(invalid);
  const empty = edits.flatMap((edit, index) =>
    hasChanges(edit) ? [] : [{ field: `[${index}]`, message: 'carries no change' }],
  );
  if (empty.length) {
    throw errors.productChangesRequired('Every object of the batch must carry at least one change.', empty);
  }
  return body.map((item, index) => ({ id: item.id, edit: edits[index] }));
}

/** The edited products, in the order received, as the JSON body of the answer. */
export async function bulkEditProducts(db: Db, restaurantId: number, body: BulkInput, principal: Principal) {
  return productsJson(
    await applyEdits(db, restaurantId, bulkEdits(body), 'bulk', describePrincipal(principal)),
  );
}

export async function setAvailability(
  db: Db,
  restaurantId: number,
  id: number,
  body: AvailabilityInput,
  principal: Principal,
) {
  if (body.available === undefined && body.available_in_delivery === undefined) {
    throw errors.productChangesRequired('Send available and/or available_in_delivery.');
  }
  const edit: Edit = { patch: { ...body }, fiscal: {} };
  const [row] = await applyEdits(
    db,
    restaurantId,
    [{ id, edit }],
    'availability',
    describePrincipal(principal),
  );
  return detail(row);
}
