// The one map from a product row to the API shape (contract 2.2, 2.3).
import { FISCAL_COLUMNS, type FiscalValues } from '../../db/fiscal-columns.ts';

import { FLAG_FIELDS, MONEY_FIELDS } from '../../db/product-columns.ts';
import { ByteWriter } from '../../lib/byte-writer.ts';

export { FLAG_FIELDS, MONEY_FIELDS };

/** The columns every product read selects: internal ones (cost, fiscal_group_id...) are never read. */
export const PRODUCT_COLUMNS = [
  'id',
  'restaurant_id',
  'product_category_id',
  'brand_id',
  'position',
  'name',
  'description',
  ...MONEY_FIELDS,
  ...FLAG_FIELDS,
  'created_at',
  'updated_at',
  ...FISCAL_COLUMNS,
] as const;

/** The columns mapProduct reads: what the read routes select. */
export const MAPPED_COLUMNS = PRODUCT_COLUMNS.filter((c) => c !== 'brand_id' && c !== 'position');

export type ProductRow = MappedRow & { brand_id: number | null; position: number };

export type MappedRow = FiscalValues & {
  id: number;
  restaurant_id: number;
  product_category_id: number;
  name: string;
  description: string | null;
  price: string;
  price_promotion: string | null;
  delivery_price: string | null;
  delivery_price_promotion: string | null;
  available: boolean;
  available_in_delivery: boolean;
  sold_off: boolean;
  use_weight: boolean;
  has_starting_price: boolean;
  charge_service_tax: boolean;
  created_at: Date;
  updated_at: Date;
};

export function fiscalOf(row: FiscalValues): FiscalValues {
  const fiscal = {} as FiscalValues;
  for (const column of FISCAL_COLUMNS) fiscal[column] = row[column] ?? null;
  return fiscal;
}

export type ListedProductResponse = ReturnType<typeof listed>;
export type ProductResponse = ListedProductResponse & { fiscal_info: FiscalValues };

/** `alias` adds `fiscal_info` (detail and write responses); the legacy listing has `fiscal` only. */
export function mapProduct(row: MappedRow, options: { alias: true }): ProductResponse;
export function mapProduct(row: MappedRow, options: { alias: false }): ListedProductResponse;
export function mapProduct(row: MappedRow, options: { alias: boolean }) {
  const product = listed(row);
  return options.alias ? Object.assign(product, { fiscal_info: product.fiscal }) : product;
}

/**
 * A product's JSON in two parts, as the Product schema's serialiser writes it: `head`, every field
 * up to `fiscal` (an object's text without its closing brace), and the fiscal object's text, which
 * is written once and used for both `fiscal` and `fiscal_info`.
 */
export function productParts(row: MappedRow): { head: string; fiscal: string } {
  return { head: JSON.stringify(fields(row)).slice(0, -1), fiscal: JSON.stringify(fiscalOf(row)) };
}

/**
 * Products as a bulk edit answers them, written as UTF-8 JSON: the bytes the Product schema's
 * serialiser writes (held by test/modules/catalog/write-bytes.test.ts), each fiscal object
 * serialised once (productParts), straight into one buffer: the schema serialiser builds the
 * 200 KB text of 100 products in pieces that are then joined, measured and copied again, and
 * JSON.stringify of mapProduct's objects builds each fiscal object's text twice.
 */
export function productsJson(rows: MappedRow[]): Buffer {
  const out = new ByteWriter(2304 * rows.length + 8192);
  for (let i = 0; i < rows.length; i++) {
    const { head, fiscal } = productParts(rows[i]);
    // Piece by piece: joined first, each product's text would be one more string to collect.
    out.text(i ? ',' : '[');
    out.text(head);
    out.text(',"fiscal":');
    out.text(fiscal);
    out.text(',"fiscal_info":');
    out.text(fiscal);
    out.text('}');
  }
  out.text(rows.length ? ']' : '[]');
  // Sent at once and dropped: the spare room goes with it.
  return out.written();
}

/** Every field of a product but its fiscal object, in the schema's order. */
function fields(row: MappedRow) {
  return {
    id: row.id,
    restaurant_id: row.restaurant_id,
    product_category_id: row.product_category_id,
    name: row.name,
    description: row.description,
    price: row.price,
    price_promotion: row.price_promotion,
    delivery_price: row.delivery_price,
    delivery_price_promotion: row.delivery_price_promotion,
    available: row.available,
    available_in_delivery: row.available_in_delivery,
    sold_off: row.sold_off,
    use_weight: row.use_weight,
    has_starting_price: row.has_starting_price,
    charge_service_tax: row.charge_service_tax,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const listed = (row: MappedRow) => Object.assign(fields(row), { fiscal: fiscalOf(row) });
