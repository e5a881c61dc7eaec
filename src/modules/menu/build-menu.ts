// The per-request part of the menu: the schedule checks at the requested instant and the filters
// decide, product by product, what is shown and with which availability.resolved value. The
// result is a plan: what menu-body.ts writes, and its exact length for content-length, counted
// without writing anything. The shape is menuResponse.
import {
  type Catalog,
  type CatalogCategory,
  type FiscalPieces,
  fiscalPieces,
  type SearchText,
  searchIndex,
} from './catalog.ts';
import { LAYOUT } from './catalog-writer.ts';
import { outcomeOf } from './product-json.ts';
import { RESOLVED } from './render-parts.ts';
import { isWithin } from './schedule.ts';
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

type MenuContext = { request: MenuRequest; clock: MenuClock; acceptsScheduling: boolean };

export const HIDDEN = -1;

export type MenuPlan = {
  catalog: Catalog;
  /** With include_fiscal_info: the catalog's fiscal projections as JSON. */
  fiscal: FiscalPieces | null;
  /** `{"restaurant_id":...,"categories":[`. */
  top: Buffer;
  /** The categories shown, in order. */
  categories: CatalogCategory[];
  /** Per product of a category shown: the Outcome it is shown at, or HIDDEN. */
  shown: Int8Array;
  /** Bytes of the whole body. */
  length: number;
};

/** Decides the products of a category; returns the bytes they take, or -1 when none is shown. */
function planCategory(plan: MenuPlan, category: CatalogCategory, context: MenuContext): number {
  const { onlyAvailable, needle } = context.request;
  const { pieceLayout, products } = plan.catalog;
  const { layout, resolved, fiscal, groupsFrom, groups, schedules } = products;
  const search = needle === '' ? null : searchIndex(plan.catalog);
  /** Whether the product's name or description holds the needle, both normalised. */
  const matches = ({ text, ends }: SearchText, i: number) =>
    text.slice(i === 0 ? 0 : ends[i * 2 - 1], ends[i * 2]).includes(needle) ||
    text.slice(ends[i * 2], ends[i * 2 + 1]).includes(needle);
  const piece = (p: number) => pieceLayout[p * 2 + 1] - pieceLayout[p * 2];
  const open = isWithin(category.schedules, context.clock);
  const closed = outcomeOf(false, context.acceptsScheduling);
  const outcomeOfCategory = open ? 0 : closed;
  let listed = 0;
  let bytes = 0;
  for (let i = category.first; i < category.first + category.count; i++) {
    const own = schedules[i];
    const outcome = own.length === 0 ? outcomeOfCategory : open && isWithin(own, context.clock) ? 0 : closed;
    const value = resolved[i * 3 + outcome];
    if ((onlyAvailable && !RESOLVED[value].listedWhenFiltered) || (search !== null && !matches(search, i))) {
      plan.shown[i] = HIDDEN;
      continue;
    }
    plan.shown[i] = outcome;
    if (listed++ > 0) bytes++; // the comma
    bytes += layout[i * LAYOUT + 4] - layout[i * LAYOUT];
    const written = resolved[i * 3];
    if (value !== written) bytes += RESOLVED[value].bytes.length - RESOLVED[written].bytes.length;
    for (let g = groupsFrom[i]; g < groupsFrom[i + 1]; g++)
      bytes += piece(groups[g]) + (g > groupsFrom[i] ? 1 : 0);
    if (plan.fiscal) {
      const { ends } = plan.fiscal;
      const k = fiscal[i];
      bytes += ends[k] - (k === 0 ? 0 : ends[k - 1]) - 1; // instead of the final '}'
    }
  }
  return listed === 0 ? -1 : bytes;
}

/** What a menu answer says before its categories (plan.top): the request alone says it. */
export function menuHead(request: MenuRequest): Buffer {
  const top = JSON.stringify({
    restaurant_id: request.restaurantId,
    channel: request.channel,
    evaluated_at: request.at.toISOString(),
  });
  return Buffer.from(`${top.slice(0, -1)},"categories":[`);
}

/**
 * Categories come in position order; with only_available or a search a category left without
 * products is dropped, otherwise every listed category appears, even an empty one.
 */
export function planMenu(catalog: Catalog, context: MenuContext): MenuPlan {
  const { request } = context;
  const plan: MenuPlan = {
    catalog,
    fiscal: request.includeFiscal ? fiscalPieces(catalog) : null,
    top: menuHead(request),
    categories: [],
    shown: new Int8Array(catalog.products.resolved.length / 3),
    length: 0,
  };
  const dropEmpty = request.onlyAvailable || request.needle !== '';
  let length = plan.top.length + 2;
  for (const category of catalog.categories) {
    if (request.categoryId !== undefined && category.id !== request.categoryId) continue;
    const products = planCategory(plan, category, context);
    if (products < 0 && dropEmpty) continue;
    if (plan.categories.length > 0) length++; // the comma
    length += category.productsStart - category.start + Math.max(products, 0) + 2;
    plan.categories.push(category);
  }
  plan.length = length;
  return plan;
}
