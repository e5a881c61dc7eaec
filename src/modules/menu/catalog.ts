// A restaurant's catalog for one channel as the menu needs it, assembled once from the repository
// rows and reused by every read until the catalog version moves (catalog-cache.ts). Nothing here
// depends on the instant of a read.
//
// It is kept as UTF-8 JSON, ready to send: serialising 2,000 products per request cost more than
// the rest of the request together, and building a fresh 2 MB body per request kept the garbage
// collector busy (README.md (The menu) has the numbers). The channel is written once, in menu
// order, as a read within every schedule would send it: `{category},{category}`, each product
// after its comma. A read sends slices of it (build-menu.ts, menu-body.ts), so a menu showing
// everything is one slice, and swaps in the few bytes that differ: another availability.resolved
// value (product-json.ts), the fiscal projection. In a large catalog the groups
// (complement_categories), which would otherwise be half its bytes, are kept once as pieces; a
// read then copies them in. The fiscal projections are kept as the database's text, each distinct
// one once, and written as JSON only when a read first asks for them (include_fiscal_info=true):
// they were a quarter of a catalog's bytes and the largest share of the time to assemble it. A
// catalog first loaded for a read that does not ask for them has none (fiscalTexts null): they were
// a third of the statement's time; the menu service loads the catalog again with them when a read
// asks (service.ts). Per
// product only numbers are kept besides the text, in typed arrays: little for the garbage
// collector to walk.
import { ByteWriter } from '../../lib/byte-writer.ts';
import { comboCounts, groupsByProduct, productsByCategory } from './catalog-index.ts';
import { LAYOUT, PieceWriter, writeProduct } from './catalog-writer.ts';
import { productRenderer } from './product-json.ts';
import { END_LIST, fiscalClose } from './render-parts.ts';
import type { CatalogRows } from './repository.ts';
import { normalizeSearch } from './search.ts';
import type { MenuChannel, MenuSchedule } from './types.ts';

/** Past this many bytes of groups written inline, products refer to their groups instead. */
const INLINE_GROUPS_MAX_BYTES = 16 * 1024 * 1024;

export type CatalogCategory = {
  id: number;
  schedules: readonly MenuSchedule[];
  /** Its head `{"id":1,...,"products":[`, from `start` (after its comma, but the first). */
  start: number;
  productsStart: number;
  /** The end of its closing ']}'. */
  end: number;
  /** Its products are `first` to `first + count - 1`. */
  first: number;
  count: number;
};

/** Per product, in menu order. */
export type CatalogProducts = {
  /**
   * LAYOUT per product: start (after its comma), start and end of its availability.resolved
   * value, where referred groups go (before ']}'), end.
   */
  layout: Uint32Array;
  /** 3 per product: resolvedIndex by Outcome. */
  resolved: Uint8Array;
  /** Its fiscal projection: an index of Catalog.fiscalTexts. */
  fiscal: Uint32Array;
  /** Its referred groups are the pieces groups[groupsFrom[i]] to groups[groupsFrom[i + 1] - 1]. */
  groupsFrom: Uint32Array;
  groups: Uint32Array;
  /** The product's own schedules (the category's are on the category). */
  schedules: (readonly MenuSchedule[])[];
  /**
   * What search matches, as written, in UTF-8: the name of product i is bytes ends[2i - 1] (or 0)
   * to ends[2i], its description (empty without one) runs on to ends[2i + 1]. Bytes, not a string:
   * a catalog unpacked from its compressed form gets them as a view, with no copy, and only a read
   * that searches decodes and normalises them (searchIndex).
   */
  search: { bytes: Buffer; ends: Uint32Array };
};

/** Names and descriptions normalised (normalizeSearch) in one string, with where each ends. */
export type SearchText = { text: string; ends: Uint32Array };

export type Catalog = {
  version: number;
  /**
   * What the catalog holds, about: the cache's budget counts it. fiscalPieces and searchIndex add
   * theirs when a read first makes them (the menu service then keeps the catalog again, re-counted).
   */
  bytes: number;
  channel: MenuChannel;
  /** The categories and products as written (the module's comment), UTF-8. */
  body: Buffer;
  pieces: Buffer;
  /** 2 per piece: start and end in `pieces`; a group's start follows a comma. */
  pieceLayout: Uint32Array;
  categories: CatalogCategory[];
  products: CatalogProducts;
  /**
   * The distinct fiscal projections, as ProductRow.fiscal (a JSON array of FISCAL_COLUMNS' values);
   * null when the rows were loaded without them.
   */
  fiscalTexts: string[] | null;
  /** fiscalTexts written as fiscalClose, made by the first read that asks (fiscalPieces). */
  fiscalPieces?: FiscalPieces;
  /** products.search normalised (normalizeSearch), made by the first read that searches (searchIndex). */
  searchIndex?: SearchText;
};

/** fiscalClose of each fiscal text, in one buffer: the k-th from ends[k - 1] (or 0) to ends[k]. */
export type FiscalPieces = { bytes: Buffer; ends: Uint32Array };

const ALWAYS: readonly MenuSchedule[] = [];

export function assembleCatalog(
  rows: CatalogRows,
  channel: MenuChannel,
  inlineGroupsMaxBytes = INLINE_GROUPS_MAX_BYTES,
): Catalog {
  const groupsOf = groupsByProduct(rows);
  const combos = comboCounts(rows.comboItems, channel);
  const byCategory = productsByCategory(rows);
  const render = productRenderer(channel);
  let count = 0;
  let links = 0;
  let groupBytes = 0;
  for (const list of byCategory.values())
    for (const row of list) {
      count++;
      for (const group of groupsOf.get(row.id) ?? []) {
        links++;
        groupBytes += render.group(group).length + 1;
      }
    }
  const inlineGroups = groupBytes <= inlineGroupsMaxBytes;
  const products: CatalogProducts = {
    layout: new Uint32Array(count * LAYOUT),
    resolved: new Uint8Array(count * 3),
    fiscal: new Uint32Array(count),
    groupsFrom: new Uint32Array(count + 1),
    groups: new Uint32Array(inlineGroups ? 0 : links),
    schedules: new Array(count),
    search: { bytes: Buffer.alloc(0), ends: new Uint32Array(count * 2) },
  };
  const search: string[] = [];
  let searchLength = 0;
  const writer = new ByteWriter(count * 1536);
  const pieces = new PieceWriter(64 * 1024);
  // Rows are loaded with their fiscal projections or all without.
  const fiscalTexts: string[] | null = rows.products[0]?.fiscal === null ? null : [];
  const fiscalIndex = new Map<string, number>();
  let i = 0;
  let link = 0;
  const categories = rows.categories.map((category, index): CatalogCategory => {
    const { id, name, position, available } = category;
    const head = `${JSON.stringify({ id, name, position, available }).slice(0, -1)},"products":[`;
    if (index > 0) writer.text(',');
    const start = writer.length;
    const productsStart = writer.text(head);
    const first = i;
    for (const row of byCategory.get(id) ?? []) {
      const json = render.product(row, category, groupsOf.get(row.id) ?? [], combos.get(row.id) ?? 0);
      writeProduct(writer, products.layout, i, i === first, json, inlineGroups);
      products.resolved.set(json.resolved, i * 3);
      if (fiscalTexts !== null && row.fiscal !== null) {
        let fiscal = fiscalIndex.get(row.fiscal);
        if (fiscal === undefined) {
          fiscal = fiscalTexts.push(row.fiscal) - 1;
          fiscalIndex.set(row.fiscal, fiscal);
        }
        products.fiscal[i] = fiscal;
      }
      if (!inlineGroups) for (const group of json.groups) products.groups[link++] = pieces.place(group);
      products.groupsFrom[i + 1] = link;
      products.schedules[i] = row.schedules.length > 0 ? row.schedules : ALWAYS;
      const description = row.description ?? '';
      search.push(row.name, description);
      products.search.ends[i * 2] = searchLength += Buffer.byteLength(row.name);
      products.search.ends[i * 2 + 1] = searchLength += Buffer.byteLength(description);
      i++;
    }
    const end = writer.copy(END_LIST);
    const { schedules } = category;
    return { id, schedules, start, productsStart, end, first, count: i - first };
  });
  // A buffer of its own: Buffer.from would put a small one in Node's shared pool, and keeping the
  // catalog would keep the whole slab.
  products.search.bytes = Buffer.allocUnsafeSlow(searchLength);
  products.search.bytes.write(search.join(''));
  const catalog = {
    version: rows.version,
    channel,
    body: writer.take(),
    ...pieces.finish(),
    categories,
    products,
    fiscalTexts,
  };
  return { ...catalog, bytes: sizeOf(catalog) };
}

/** The catalog's fiscal projections as JSON, written on first use and kept with it. */
export function fiscalPieces(catalog: Catalog): FiscalPieces {
  if (!catalog.fiscalPieces) {
    if (catalog.fiscalTexts === null)
      throw new Error('the catalog was loaded without its fiscal projections');
    const texts = catalog.fiscalTexts.map(fiscalClose);
    const ends = new Uint32Array(texts.length);
    let length = 0;
    for (const [k, text] of texts.entries()) ends[k] = length += Buffer.byteLength(text);
    const bytes = Buffer.allocUnsafeSlow(length);
    for (const [k, text] of texts.entries()) bytes.write(text, k === 0 ? 0 : ends[k - 1]);
    catalog.fiscalPieces = { bytes, ends };
    catalog.bytes += bytes.length + ends.byteLength;
  }
  return catalog.fiscalPieces;
}

/**
 * The catalog's search text normalised, made on the first read that searches and kept with it:
 * normalising every name and description was a quarter of assembling a catalog, for the few reads
 * that search.
 */
export function searchIndex(catalog: Catalog): SearchText {
  if (!catalog.searchIndex) {
    const { bytes, ends } = catalog.products.search;
    const parts: string[] = [];
    const normalisedEnds = new Uint32Array(ends.length);
    let length = 0;
    for (let k = 0; k < ends.length; k++) {
      const part = normalizeSearch(bytes.toString('utf8', k === 0 ? 0 : ends[k - 1], ends[k]));
      parts.push(part);
      normalisedEnds[k] = length += part.length;
    }
    catalog.searchIndex = { text: parts.join(''), ends: normalisedEnds };
    // At most two bytes a character.
    catalog.bytes += length * 2 + normalisedEnds.byteLength;
  }
  return catalog.searchIndex;
}

/** About the bytes a catalog holds, for the cache's budget. */
function sizeOf(catalog: Omit<Catalog, 'bytes'>): number {
  const { products } = catalog;
  let bytes =
    catalog.body.buffer.byteLength + catalog.pieces.buffer.byteLength + catalog.pieceLayout.byteLength;
  for (const array of [
    products.layout,
    products.resolved,
    products.fiscal,
    products.groupsFrom,
    products.groups,
    products.search.ends,
  ])
    bytes += array.byteLength;
  // The text search reads, categories, fiscal texts.
  bytes += products.search.bytes.length + catalog.categories.length * 128;
  for (const text of catalog.fiscalTexts ?? []) bytes += 24 + text.length * 2;
  return bytes;
}
