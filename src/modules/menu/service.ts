// GET /v1/menu: read the restaurant and its catalog version (one query), reuse or reload the
// catalog, then resolve availability at the requested instant.
import type { Db } from '../../db/database.ts';
import { errors } from '../../http/errors.ts';
import { type MenuRequest, renderMenu } from './build-menu.ts';
import { assembleCatalog } from './catalog.ts';
import type { CatalogCache } from './catalog-cache.ts';
import { loadCatalogRows, readRestaurantState } from './repository.ts';
import { localClock } from './schedule.ts';
import type { MenuQuery } from './schemas.ts';
import { normalizeSearch } from './search.ts';

export type MenuService = ReturnType<typeof createMenuService>;

function instant(at: string | undefined): Date {
  if (at === undefined) return new Date();
  const date = new Date(at);
  // The schema checked the format; this catches what Date cannot represent.
  if (Number.isNaN(date.getTime())) {
    throw errors.invalidQuery('Invalid query: at is not a valid instant.', [
      { field: 'at', message: 'must be an ISO 8601 instant, e.g. 2026-03-06T21:00:00Z' },
    ]);
  }
  return date;
}

export function createMenuService(db: Db, cache: CatalogCache) {
  return {
    /** The menu as pieces of UTF-8 JSON (see renderMenu). */
    async read(restaurantId: number, query: MenuQuery): Promise<Buffer[]> {
      const request: MenuRequest = {
        restaurantId,
        channel: query.channel ?? 'in_store',
        at: instant(query.at),
        onlyAvailable: query.only_available === 'true',
        categoryId: query.category_id,
        needle: normalizeSearch(query.search ?? ''),
        includeFiscal: query.include_fiscal_info === 'true',
      };
      const restaurant = await readRestaurantState(db, restaurantId);
      if (!restaurant) throw errors.restaurantForbidden();
      const catalog = await cache.get(restaurantId, restaurant.catalog_version, async () =>
        assembleCatalog(await loadCatalogRows(db, restaurantId)),
      );
      const clock = localClock(request.at, restaurant.timezone);
      return renderMenu(catalog, { request, clock, acceptsScheduling: restaurant.accepts_scheduling });
    },
  };
}
