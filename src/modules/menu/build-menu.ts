// The per-request part of the menu: the schedule checks at the requested instant, the filters,
// and the choice of pre-rendered pieces of the catalog (catalog.ts). The shape is menuResponse.
import { isListed } from './availability.ts';
import type { Catalog, CatalogCategory } from './catalog.ts';
import { type CatalogProduct, outcomeOf, type Rendered } from './product-json.ts';
import { COMMA, END_LIST, pushProduct } from './render-parts.ts';
import { isWithin } from './schedule.ts';
import { matchesSearch } from './search.ts';
import type { MenuChannel, MenuClock } from './types.ts';

export type MenuRequest = {
  restaurantId: number;
  channel: MenuChannel;
  at: Date;
  onlyAvailable: boolean;
  categoryId: number | undefined;
  /** Already normalised with normalizeSearch; '' matches every product. */
  needle: string;
  includeFiscal: boolean;
};

type Context = { request: MenuRequest; clock: MenuClock; acceptsScheduling: boolean };

/** The product as it is at the instant: within its and its category's schedules, or not. */
function atInstant(product: CatalogProduct, categoryOpen: boolean, context: Context): Rendered {
  const open = categoryOpen && isWithin(product.row.schedules, context.clock);
  return product.rendered[context.request.channel][outcomeOf(open, context.acceptsScheduling)];
}

/** Appends the listed products of a category one by one (search, fiscal data); returns how many. */
function pushEach(
  parts: Buffer[],
  category: CatalogCategory,
  categoryOpen: boolean,
  context: Context,
): number {
  const { onlyAvailable, needle, includeFiscal } = context.request;
  let listed = 0;
  for (const product of category.products) {
    if (needle !== '' && !matchesSearch(product.row, needle)) continue;
    const { resolved, json } = atInstant(product, categoryOpen, context);
    if (!isListed(resolved, onlyAvailable)) continue;
    if (listed++ > 0) parts.push(COMMA);
    pushProduct(parts, json, product, includeFiscal);
  }
  return listed;
}

/** The same through the category's segments: whole runs, and products with schedules of their own. */
function pushSegments(
  parts: Buffer[],
  category: CatalogCategory,
  categoryOpen: boolean,
  context: Context,
): number {
  const { channel, onlyAvailable } = context.request;
  const outcome = outcomeOf(categoryOpen, context.acceptsScheduling);
  let pieces = 0;
  for (const { run, own } of category.segments) {
    let piece: Buffer | null;
    if (run) piece = run.pieces[channel][outcome][onlyAvailable ? 1 : 0];
    else {
      const { resolved, json } = atInstant(own, categoryOpen, context);
      piece = isListed(resolved, onlyAvailable) ? json : null;
    }
    if (piece === null) continue;
    if (pieces++ > 0) parts.push(COMMA);
    parts.push(piece);
  }
  return pieces;
}

/**
 * The menu body as pieces of UTF-8 JSON, to be written one after the other. Categories come in
 * position order; with only_available or a search a category left without products is dropped,
 * otherwise every listed category appears, even an empty one.
 */
export function renderMenu(catalog: Catalog, context: Context): Buffer[] {
  const { request, clock } = context;
  const top = JSON.stringify({
    restaurant_id: request.restaurantId,
    channel: request.channel,
    evaluated_at: request.at.toISOString(),
  });
  const parts: Buffer[] = [Buffer.from(`${top.slice(0, -1)},"categories":[`)];
  const dropEmpty = request.onlyAvailable || request.needle !== '';
  const whole = request.needle === '' && !request.includeFiscal;
  let categories = 0;
  for (const category of catalog.categories) {
    if (request.categoryId !== undefined && category.id !== request.categoryId) continue;
    const start = parts.length;
    if (categories > 0) parts.push(COMMA);
    parts.push(category.head);
    const open = isWithin(category.schedules, clock);
    const listed = whole
      ? pushSegments(parts, category, open, context)
      : pushEach(parts, category, open, context);
    if (listed === 0 && dropEmpty) {
      parts.length = start;
      continue;
    }
    parts.push(END_LIST);
    categories++;
  }
  parts.push(END_LIST);
  return parts;
}
