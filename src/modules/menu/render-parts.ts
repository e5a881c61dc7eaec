// The small pieces menu JSON is put together from: the closing of a list, the few values
// availability.resolved can take, numbered so a catalog keeps one byte per product and outcome,
// and the fiscal projection.
import { FISCAL_COLUMNS } from '../../db/fiscal-columns.ts';
import { type MenuResolvedAvailability, type MenuUnavailableReason, UNAVAILABLE_REASONS } from './types.ts';

/** Closes a category's products and the menu's categories alike. */
export const END_LIST = Buffer.from(']}');

const REASONS: readonly (MenuUnavailableReason | null)[] = [null, ...UNAVAILABLE_REASONS];

type ResolvedValue = {
  /** `{"available":...,"reason":...,"schedulable":...}`, as JSON.stringify writes the object. */
  json: string;
  bytes: Buffer;
  /** Listed with only_available=true: available now, or orderable for later (isListed). */
  listedWhenFiltered: boolean;
};

/** Every value of availability.resolved, at its resolvedIndex. */
export const RESOLVED: readonly ResolvedValue[] = REASONS.flatMap((reason) =>
  [false, true].flatMap((available) =>
    [false, true].map((schedulable) => {
      const json = JSON.stringify({ available, reason, schedulable });
      return { json, bytes: Buffer.from(json), listedWhenFiltered: available || schedulable };
    }),
  ),
);

export function resolvedIndex(resolved: MenuResolvedAvailability): number {
  const reason = REASONS.indexOf(resolved.reason);
  if (reason < 0) throw new TypeError(`unknown reason ${resolved.reason}`);
  return reason * 4 + (resolved.available ? 2 : 0) + (resolved.schedulable ? 1 : 0);
}

const FISCAL_KEYS = FISCAL_COLUMNS.map((column, k) => `${k === 0 ? '' : ','}"${column}":`);

/**
 * ',"fiscal":{...}}' from ProductRow.fiscal: replaces the product's final '}' when fiscal data is
 * asked for. Written key by key: an object given 32 keys one at a time is slow to build and to
 * serialise.
 */
export function fiscalClose(fiscal: string): string {
  const values = JSON.parse(fiscal) as (string | null)[];
  if (values.length !== FISCAL_COLUMNS.length) throw new TypeError(`not a fiscal projection: ${fiscal}`);
  let text = ',"fiscal":{';
  for (let k = 0; k < FISCAL_COLUMNS.length; k++) text += FISCAL_KEYS[k] + JSON.stringify(values[k]);
  return `${text}}}`;
}
