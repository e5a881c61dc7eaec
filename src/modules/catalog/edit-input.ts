// Body rules of contract 2.1 that JSON Schema cannot state exactly: names are trimmed and
// counted in characters, text holds only what PostgreSQL can store (no NUL, no lone
// surrogate), prices have at most two decimals (read from the number's shortest decimal
// form), expected_updated_at is an instant. Pure functions, errors name the field.

import type { FiscalColumn, FiscalValues } from '../../db/fiscal-columns.ts';
import type { FlagField, MoneyField, ProductColumns } from '../../db/product-columns.ts';
import { unstorable } from '../../db/storable-text.ts';
import type { FieldError } from '../../http/errors.ts';
import { formatCents, numberToCents } from '../../lib/money.ts';
import { FLAG_FIELDS, MONEY_FIELDS } from './product-map.ts';

/** Editable product values as stored: money as "12.50" strings. */
export type ProductValues = Pick<
  ProductColumns,
  'name' | 'product_category_id' | 'description' | MoneyField | FlagField
>;

export type ProductPatch = Partial<ProductValues>;

export type Edit = {
  patch: ProductPatch;
  fiscal: Partial<FiscalValues>;
  /** The instant expected_updated_at names; `exact` is false when it has sub-millisecond digits. */
  expected?: { millis: number; exact: boolean };
};

/** What an omitted field is on create (contract 2.1); on edit omission keeps the stored value. */
const DEFAULTS = {
  description: null,
  price_promotion: null,
  delivery_price: null,
  delivery_price_promotion: null,
  available: true,
  available_in_delivery: true,
  sold_off: false,
  use_weight: false,
  has_starting_price: false,
  charge_service_tax: true,
} as const;

const MAX_TEXT = 255;
const characters = (text: string) => [...text].length;

/** Only text PostgreSQL can store: no NUL, no lone UTF-16 surrogate. */
function text(field: string, value: string, errors: FieldError[], max = MAX_TEXT): void {
  const problem = unstorable(value);
  if (problem) errors.push({ field, message: problem });
  else if (characters(value) > max) errors.push({ field, message: `must have at most ${max} characters` });
}

function money(field: string, value: number | null, errors: FieldError[]): string | null {
  if (value === null) return null;
  const cents = numberToCents(value);
  if (cents === null) {
    errors.push({ field, message: 'must be a JSON number with at most two decimals' });
    return null;
  }
  return formatCents(cents);
}

function instant(field: string, value: string, errors: FieldError[]): Edit['expected'] {
  const millis = Date.parse(value.replace(' ', 'T'));
  if (Number.isNaN(millis)) {
    errors.push({ field, message: 'must be an ISO 8601 date-time' });
    return undefined;
  }
  const fraction = /:\d{2}\.(\d+)/.exec(value)?.[1] ?? '';
  return { millis, exact: !/[1-9]/.test(fraction.slice(3)) };
}

/** Normalises the edit fields present in `body`; `at` prefixes field names ("[3]." in bulk). */
export function parseEdit(body: Record<string, any>, at: string, errors: FieldError[]): Edit {
  const patch: Record<string, unknown> = {};
  if (body.name !== undefined) {
    const name = (body.name as string).trim();
    text(`${at}name`, name, errors);
    patch.name = name;
  }
  if (body.description !== undefined) {
    if (body.description !== null) text(`${at}description`, body.description, errors);
    patch.description = body.description;
  }
  if (body.product_category_id !== undefined) patch.product_category_id = body.product_category_id;
  for (const field of MONEY_FIELDS) {
    if (body[field] !== undefined) patch[field] = money(`${at}${field}`, body[field], errors);
  }
  for (const field of FLAG_FIELDS) if (body[field] !== undefined) patch[field] = body[field];
  const fiscal: Partial<FiscalValues> = {};
  for (const [attribute, value] of Object.entries((body.fiscal_info ?? {}) as Partial<FiscalValues>)) {
    if (value === undefined) continue;
    if (value !== null) text(`${at}fiscal_info.${attribute}`, value, errors, Infinity);
    fiscal[attribute as FiscalColumn] = value;
  }
  const edit: Edit = { patch: patch as ProductPatch, fiscal };
  if (body.expected_updated_at !== undefined) {
    edit.expected = instant(`${at}expected_updated_at`, body.expected_updated_at, errors);
  }
  return edit;
}

export const hasChanges = (edit: Edit) =>
  Object.keys(edit.patch).length > 0 || Object.keys(edit.fiscal).length > 0;

/** A create body with the defaults of contract 2.1 filled in. */
export function parseCreate(body: Record<string, any>, errors: FieldError[]): ProductValues {
  const { patch } = parseEdit(body, '', errors);
  return { ...DEFAULTS, ...patch } as ProductValues;
}
