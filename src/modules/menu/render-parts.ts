// The pieces menu JSON is put together from: shared punctuation, the few values of
// availability.resolved, and a run of products rendered as one piece.
import { isListed } from './availability.ts';
import type { CatalogProduct, Outcome } from './product-json.ts';
import type { MenuChannel, MenuResolvedAvailability } from './types.ts';

export const COMMA = Buffer.from(',');
/** Closes a category's products and the menu's categories alike. */
export const END_LIST = Buffer.from(']}');

// reason x available x schedulable: each value is rendered once per process, and the same
// Buffer stands for the same value (product-json.ts keys on it).
const rendered = new Map<string | null, Buffer[]>();

export function resolvedJson(resolved: MenuResolvedAvailability): Buffer {
  let byFlags = rendered.get(resolved.reason);
  if (!byFlags) {
    byFlags = [];
    rendered.set(resolved.reason, byFlags);
  }
  const index = (resolved.available ? 2 : 0) + (resolved.schedulable ? 1 : 0);
  byFlags[index] ??= Buffer.from(JSON.stringify(resolved));
  return byFlags[index];
}

/** Appends a product, with its fiscal projection before the closing '}' when asked. */
export function pushProduct(
  parts: Buffer[],
  json: Buffer,
  product: CatalogProduct,
  includeFiscal: boolean,
): void {
  if (includeFiscal) parts.push(json.subarray(0, -1), product.fiscalClose);
  else parts.push(json);
}

/**
 * Consecutive products rendered as one comma-separated piece for a channel and an outcome: all
 * of them, or only those only_available=true lists (null when none is).
 */
export function renderRun(
  products: CatalogProduct[],
  channel: MenuChannel,
  outcome: Outcome,
  onlyListed: boolean,
): Buffer | null {
  const parts: Buffer[] = [];
  for (const product of products) {
    const { resolved, json } = product.rendered[channel][outcome];
    if (!isListed(resolved, onlyListed)) continue;
    if (parts.length > 0) parts.push(COMMA);
    parts.push(json);
  }
  return parts.length > 0 ? Buffer.concat(parts) : null;
}
