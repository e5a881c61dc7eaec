// The per-request part of the menu: availability at the instant, the filters, and the JSON
// around the pre-rendered products of the catalog (catalog.ts). The shape is menuResponse.
import { isListed, resolveAvailability } from './availability.ts';
import type { Catalog, CatalogProduct } from './catalog.ts';
import { resolvedJson } from './resolved-json.ts';
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

const COMMA = Buffer.from(',');
const END_PRODUCT = Buffer.from('}');
/** Closes a category's products and the menu's categories alike. */
const END_LIST = Buffer.from(']}');

/** Appends the product's parts and returns true when it is listed. */
function renderProduct(
  parts: Buffer[],
  product: CatalogProduct,
  request: MenuRequest,
  clock: MenuClock,
  acceptsScheduling: boolean,
): boolean {
  const view = product.views[request.channel];
  if (view.fixed) {
    if (!isListed(view.fixed, request.onlyAvailable)) return false;
    parts.push(view.body);
  } else {
    const { resolved } = resolveAvailability(view.input, request.channel, clock, acceptsScheduling);
    if (!isListed(resolved, request.onlyAvailable)) return false;
    parts.push(view.head, resolvedJson(resolved), view.tail);
  }
  parts.push(request.includeFiscal ? product.fiscalClose : END_PRODUCT);
  return true;
}

/**
 * The menu body as UTF-8 JSON. Categories in position order; with only_available or a search a
 * category left without products is dropped, otherwise every listed category appears.
 */
export function renderMenu(
  catalog: Catalog,
  request: MenuRequest,
  clock: MenuClock,
  acceptsScheduling: boolean,
) {
  const { categoryId, needle } = request;
  const dropEmpty = request.onlyAvailable || needle !== '';
  const top = JSON.stringify({
    restaurant_id: request.restaurantId,
    channel: request.channel,
    evaluated_at: request.at.toISOString(),
  });
  const parts: Buffer[] = [Buffer.from(`${top.slice(0, -1)},"categories":[`)];
  let categories = 0;
  for (const category of catalog.categories) {
    if (categoryId !== undefined && category.id !== categoryId) continue;
    const start = parts.length;
    if (categories > 0) parts.push(COMMA);
    parts.push(category.head);
    let products = 0;
    for (const product of category.products) {
      if (needle !== '' && !matchesSearch(product.row, needle)) continue;
      if (products > 0) parts.push(COMMA);
      if (renderProduct(parts, product, request, clock, acceptsScheduling)) products++;
      else if (products > 0) parts.pop(); // the comma pushed for it
    }
    if (dropEmpty && products === 0) {
      parts.length = start;
      continue;
    }
    parts.push(END_LIST);
    categories++;
  }
  parts.push(END_LIST);
  return Buffer.concat(parts);
}
