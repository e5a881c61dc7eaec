// Applies a validated edit to the locked row in memory: the new row and the list of fields
// that really change (what the history records and what decides whether to write at all).
import type { FiscalColumn } from '../../db/fiscal-columns.ts';
import type { Edit, ProductValues } from './edit-input.ts';
import type { ProductRow } from './product-map.ts';

/** Money as a two-decimal string; text, integer, boolean or null (the Change schema). */
export type ChangeValue = string | number | boolean | null;
export type Change = { field: string; from: ChangeValue; to: ChangeValue };

/** A destination category of a move: its brand and the last position handed out in it. */
export type Destination = { brand_id: number | null; last_position: number };

/** The largest value of the integer position column (the importer accepts positions up to it). */
const MAX_POSITION = 2147483647;

/**
 * The position after `last`: the end of the category. At the column's limit it stays there
 * (products of one position are ordered by id), rather than overflowing into a database error.
 */
export const positionAfter = (last: number) => Math.min(last + 1, MAX_POSITION);

export function planEdit(
  current: ProductRow,
  edit: Edit,
  destinations: Map<number, Destination>,
): { next: ProductRow; changes: Change[] } {
  const next = { ...current };
  const changes: Change[] = [];
  for (const [field, value] of Object.entries(edit.patch) as [
    keyof ProductValues,
    ProductValues[keyof ProductValues],
  ][]) {
    if (current[field] === value) continue;
    changes.push({ field, from: current[field], to: value });
    (next as Record<string, unknown>)[field] = value;
  }
  for (const [attribute, value] of Object.entries(edit.fiscal) as [FiscalColumn, string | null][]) {
    if (current[attribute] === value) continue;
    changes.push({ field: `fiscal_info.${attribute}`, from: current[attribute], to: value });
    next[attribute] = value;
  }
  if (next.product_category_id !== current.product_category_id) {
    // A move goes to the end of the destination and takes the brand linked to it (contract 2.1).
    const destination = destinations.get(next.product_category_id)!;
    destination.last_position = positionAfter(destination.last_position);
    next.position = destination.last_position;
    next.brand_id = destination.brand_id;
  }
  return { next, changes };
}

/** The history of a creation: every write field, from null. */
export function creationChanges(values: ProductValues): Change[] {
  return Object.entries(values).map(([field, to]) => ({ field, from: null, to }));
}
