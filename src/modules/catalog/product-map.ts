// The one map from a product row to the API shape (contract 2.2, 2.3): the fields of the
// ListedProduct schema, each copied from the column of the same name, in the schema's order.
import { sql } from 'kysely';
import type { Static } from 'typebox';
import { FISCAL_COLUMNS, type FiscalColumn, type FiscalValues } from '../../db/fiscal-columns.ts';
import { isoText } from '../../db/iso-instant.ts';
import { FLAG_FIELDS, MONEY_FIELDS, type ProductColumns } from '../../db/product-columns.ts';
import { ByteWriter } from '../../lib/byte-writer.ts';
import { ListedProduct } from './response-schemas.ts';

export { FLAG_FIELDS, MONEY_FIELDS };

/** A product's fields but its fiscal object, as the schema types them (instants as ISO text). */
type Fields = Omit<Static<typeof ListedProduct>, 'fiscal'>;

/** The schema's fields before `fiscal`, in its order: each is a column (MappedRow picks them). */
const FIELDS = Object.keys(ListedProduct.properties).filter((key) => key !== 'fiscal') as (keyof Fields)[];

/** The columns mapProduct reads: what the read routes select. */
export const MAPPED_COLUMNS = [...FIELDS, ...FISCAL_COLUMNS];

/** The columns every product read selects: internal ones (cost, fiscal_group_id...) are never read. */
export const PRODUCT_COLUMNS = [...MAPPED_COLUMNS, 'brand_id', 'position'] as const;

/** The instants of a product, read as the ISO text the API shows (db/iso-instant.ts). */
const INSTANTS = new Set(['created_at', 'updated_at']);
type Instant = 'created_at' | 'updated_at';

/** The SQL select list of `columns` of products aliased `alias`, the instants as ISO text. */
export function selectList(columns: readonly string[], alias: string): string {
  return columns
    .map((c) => (INSTANTS.has(c) ? `${isoText(`${alias}."${c}"`)} as "${c}"` : `${alias}."${c}"`))
    .join(', ');
}

/** PRODUCT_COLUMNS as Kysely selections (an insert's returning), the instants as ISO text. */
export const PRODUCT_SELECTIONS = PRODUCT_COLUMNS.map((c) =>
  INSTANTS.has(c) ? sql<string>`${sql.raw(isoText(`"${c}"`))}`.as(c) : c,
);

export type MappedRow = Omit<Pick<ProductColumns, keyof Fields | FiscalColumn>, Instant> &
  Record<Instant, string>;

export type ProductRow = MappedRow & Pick<ProductColumns, 'brand_id' | 'position'>;

function fiscalOf(row: FiscalValues): FiscalValues {
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
function fields(row: MappedRow): Fields {
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) {
    out[key] = row[key];
  }
  return out as Fields;
}

const listed = (row: MappedRow) => Object.assign(fields(row), { fiscal: fiscalOf(row) });
