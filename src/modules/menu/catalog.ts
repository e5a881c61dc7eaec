// A restaurant's catalog as the menu needs it, assembled once from the repository rows and
// reused by every read until the catalog version moves (catalog-cache.ts). Nothing here depends
// on the instant of a read.
//
// It is kept as UTF-8 JSON, ready to send: serialising 2,000 products per request cost more than
// the rest of the request together, and building a fresh 2 MB body per request kept the garbage
// collector busy (README.md (The menu) has the numbers). Each product is rendered for the
// outcomes of its schedule check (product-json.ts), and each run of products that share their
// category's schedule is rendered again as one piece, with and without the products
// only_available=true leaves out. build-menu.ts picks the pieces for a request.
import { type CatalogProduct, OUTCOMES, renderProduct } from './product-json.ts';
import { renderRun } from './render-parts.ts';
import type { CatalogRows, GroupRow } from './repository.ts';
import type { MenuCategoryInput, MenuChannel } from './types.ts';

/** Products without schedules of their own; pieces by channel, by Outcome, then [all, listed]. */
export type Run = {
  products: CatalogProduct[];
  pieces: Record<MenuChannel, [Buffer | null, Buffer | null][]>;
};

/** A run, or one product with a schedule of its own (checked per request). */
export type Segment = { run: Run; own: null } | { run: null; own: CatalogProduct };

export type CatalogCategory = MenuCategoryInput & {
  /** Opens the category up to its products: `{"id":1,...,"products":[`. */
  head: Buffer;
  products: CatalogProduct[];
  /** The same products, in the same order. */
  segments: Segment[];
};

export type Catalog = { version: number; bytes: number; categories: CatalogCategory[] };

export type { CatalogProduct };

const CHANNELS: MenuChannel[] = ['in_store', 'delivery'];

function comboCounts(rows: CatalogRows['comboItems']): Map<number, Record<MenuChannel, number>> {
  const counts = new Map<number, Record<MenuChannel, number>>();
  for (const item of rows) {
    let count = counts.get(item.combo_product_id);
    if (!count) {
      count = { in_store: 0, delivery: 0 };
      counts.set(item.combo_product_id, count);
    }
    if (item.available) count.in_store++;
    if (item.available_in_delivery) count.delivery++;
  }
  return counts;
}

function groupsByProduct(rows: CatalogRows): Map<number, GroupRow[]> {
  const groupsById = new Map(rows.groups.map((group) => [group.id, group]));
  const groupsOf = new Map<number, GroupRow[]>();
  for (const link of rows.links) {
    const group = groupsById.get(link.complement_category_id);
    if (!group) continue; // a removed group
    const list = groupsOf.get(link.product_id);
    if (list) list.push(group);
    else groupsOf.set(link.product_id, [group]);
  }
  return groupsOf;
}

function renderPieces(products: CatalogProduct[], scheduled: boolean): Run['pieces'] {
  const pieces = {} as Run['pieces'];
  for (const channel of CHANNELS) {
    const open: [Buffer | null, Buffer | null] = [
      renderRun(products, channel, 0, false),
      renderRun(products, channel, 0, true),
    ];
    // Without a category schedule every read is within it: the other outcomes never occur.
    pieces[channel] = OUTCOMES.map((_, outcome) =>
      outcome === 0 || !scheduled
        ? open
        : [
            renderRun(products, channel, outcome as 1 | 2, false),
            renderRun(products, channel, outcome as 1 | 2, true),
          ],
    );
  }
  return pieces;
}

function segmentsOf(category: CatalogCategory): Segment[] {
  const segments: Segment[] = [];
  let run: CatalogProduct[] = [];
  const closeRun = () => {
    if (run.length > 0)
      segments.push({
        run: { products: run, pieces: renderPieces(run, category.schedules.length > 0) },
        own: null,
      });
    run = [];
  };
  for (const product of category.products) {
    if (product.row.schedules.length === 0) {
      run.push(product);
      continue;
    }
    closeRun();
    segments.push({ run: null, own: product });
  }
  closeRun();
  return segments;
}

/** Bytes held by a category, each distinct buffer once. */
function sizeOf(category: CatalogCategory): number {
  const buffers = new Set<Buffer | null>([category.head]);
  for (const product of category.products) {
    buffers.add(product.fiscalClose);
    for (const channel of CHANNELS) for (const { json } of product.rendered[channel]) buffers.add(json);
  }
  for (const { run } of category.segments) {
    for (const channel of CHANNELS)
      for (const pair of run?.pieces[channel] ?? []) for (const piece of pair) buffers.add(piece);
  }
  let bytes = 0;
  for (const buffer of buffers) bytes += buffer?.length ?? 0;
  return bytes;
}

export function assembleCatalog(rows: CatalogRows): Catalog {
  const groupsOf = groupsByProduct(rows);
  const combos = comboCounts(rows.comboItems);
  const categories: CatalogCategory[] = rows.categories.map((category) => {
    const { id, name, position, available } = category;
    const head = Buffer.from(
      `${JSON.stringify({ id, name, position, available }).slice(0, -1)},"products":[`,
    );
    return { ...category, head, products: [], segments: [] };
  });
  const categoryById = new Map(categories.map((category) => [category.id, category]));
  for (const row of rows.products) {
    const category = categoryById.get(row.product_category_id);
    if (!category) continue; // packaging, marketplace mirror or removed category
    const counts = combos.get(row.id) ?? { in_store: 0, delivery: 0 };
    category.products.push(renderProduct(row, category, groupsOf.get(row.id) ?? [], counts));
  }
  let bytes = 0;
  for (const category of categories) {
    category.segments = segmentsOf(category);
    bytes += sizeOf(category);
  }
  return { version: rows.version, bytes, categories };
}
