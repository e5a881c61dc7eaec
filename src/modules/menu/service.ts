// GET /v1/menu: read the restaurant and its catalog version (one query), reuse or reload the
// channel's catalog, then plan the menu at the requested instant. Its ETag needs only the
// catalog's schedule boundaries (boundary-cache.ts), so a revalidation never loads the catalog.
import type { Db } from '../../db/database.ts';
import type { Restaurant, RestaurantState } from '../../db/restaurant-state.ts';
import { errors } from '../../http/errors.ts';
import type { BoundaryCache } from './boundary-cache.ts';
import { type MenuPlan, type MenuRequest, menuHead, planMenu } from './build-menu.ts';
import { assembleCatalog, type Catalog } from './catalog.ts';
import type { CatalogCache } from './catalog-cache.ts';
import { type CatalogRows, loadCatalogRows } from './repository.ts';
import { localClock } from './schedule.ts';
import { scheduleWindow } from './schedule-window.ts';
import type { MenuQuery } from './schemas.ts';
import { normalizeSearch } from './search.ts';
import type { MenuChannel } from './types.ts';

function instant(at: string | undefined): Date {
  if (at === undefined) return new Date();
  const date = new Date(at);
  // The schema checked the format; this catches what Date cannot represent, and an offset that
  // carries the instant past 0000-9999 in UTC, where evaluated_at would not be a date-time.
  const year = date.getUTCFullYear();
  if (Number.isNaN(year) || year < 0 || year > 9999) {
    throw errors.invalidQuery('Invalid query: at is not a valid instant.', [
      { field: 'at', message: 'must be an ISO 8601 instant, e.g. 2026-03-06T21:00:00Z' },
    ]);
  }
  return date;
}

/** Each channel is its own cache entry: a channel nobody reads is never rendered. */
const cacheKey = (restaurantId: number, channel: MenuChannel) =>
  restaurantId * 2 + (channel === 'delivery' ? 1 : 0);

export function createMenuService(db: Db, cache: CatalogCache, boundaries: BoundaryCache) {
  // Channels that miss the same version at the same time share one load of the rows.
  const loading = new Map<string, Promise<CatalogRows>>();
  function loadRows(restaurantId: number, version: number, withFiscal: boolean): Promise<CatalogRows> {
    const key = `${restaurantId}:${version}:${withFiscal}`;
    let pending = loading.get(key);
    if (!pending) {
      pending = loadCatalogRows(db, restaurantId, withFiscal).finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  /**
   * The catalog with its fiscal projections: itself, or loaded again with them (a catalog is first
   * loaded without them unless its read, or the catalog it replaces, had them: catalog.ts).
   */
  async function withFiscal(restaurantId: number, channel: MenuChannel, catalog: Catalog): Promise<Catalog> {
    if (catalog.fiscalTexts !== null) return catalog;
    const loaded = assembleCatalog(await loadRows(restaurantId, catalog.version, true), channel);
    cache.set(cacheKey(restaurantId, channel), loaded);
    return loaded;
  }

  // A request's tag and answer share one reading of it, so both see the same instant.
  const requests = new WeakMap<Restaurant, MenuRequest>();
  function menuRequest(restaurant: Restaurant, query: MenuQuery): MenuRequest {
    let request = requests.get(restaurant);
    if (!request) {
      request = readRequest(restaurant.id, query);
      requests.set(restaurant, request);
    }
    return request;
  }

  function readRequest(restaurantId: number, query: MenuQuery): MenuRequest {
    return {
      restaurantId,
      channel: query.channel ?? 'in_store',
      at: instant(query.at),
      onlyAvailable: query.only_available === true,
      categoryId: query.category_id,
      needle: normalizeSearch(query.search ?? ''),
      includeFiscal: query.include_fiscal_info === true,
    };
  }

  // A request's tag and answer share one catalog: the Restaurant object is the request's own.
  const forRequest = new WeakMap<Restaurant, ReturnType<typeof fetchCatalog>>();
  function catalogOf(restaurant: Restaurant, request: MenuRequest) {
    let pending = forRequest.get(restaurant);
    if (!pending) {
      pending = fetchCatalog(restaurant, request);
      forRequest.set(restaurant, pending);
    }
    return pending;
  }

  async function fetchCatalog(restaurant: Restaurant, { channel, includeFiscal }: MenuRequest) {
    const state = await restaurant.state();
    if (!state) throw errors.restaurantForbidden();
    const version = state.catalog_version;
    const key = cacheKey(restaurant.id, channel);
    // With the fiscal projections when this read asks for them or the catalog it replaces had them.
    const fiscal = includeFiscal || Boolean(cache.held(key)?.fiscalTexts);
    const catalog = await cache.get(key, version, async () =>
      assembleCatalog(await loadRows(restaurant.id, version, fiscal), channel),
    );
    boundaries.keep(restaurant.id, catalog);
    return { state, catalog };
  }

  /**
   * The schedule boundaries for the request's tag and the catalog version they are of: kept, or
   * those of the catalog this instance holds, or else read with their version in one statement.
   * Only when that statement saw another version than the request's (a write in between) is the
   * catalog loaded, as the answer would, and the tag names the version it was loaded at. A request
   * that cannot be answered 304 takes them from the catalog its answer needs anyway.
   */
  async function boundariesFor(
    restaurant: Restaurant,
    state: RestaurantState,
    request: MenuRequest,
    conditional: boolean,
  ) {
    const version = state.catalog_version;
    const kept = boundaries.current(restaurant.id, version);
    if (kept) return kept;
    if (!conditional)
      return boundaries.fromCatalog(restaurant.id, (await catalogOf(restaurant, request)).catalog);
    const held = cache.current(cacheKey(restaurant.id, request.channel), version);
    if (held) {
      // The request's answer, if it has one, uses this catalog.
      forRequest.set(restaurant, Promise.resolve({ state, catalog: held }));
      return boundaries.fromCatalog(restaurant.id, held);
    }
    const read = await boundaries.load(db, restaurant.id, version);
    if (read.version === version) return read;
    return boundaries.fromCatalog(restaurant.id, (await catalogOf(restaurant, request)).catalog);
  }

  return {
    /** The head of the answer (plan.top), made without the catalog. */
    head: (restaurant: Restaurant, query: MenuQuery): Buffer => menuHead(menuRequest(restaurant, query)),

    /** What the menu shows and its length; MenuBody writes it. */
    async read(restaurant: Restaurant, query: MenuQuery): Promise<MenuPlan> {
      const request = menuRequest(restaurant, query);
      const { state, catalog: found } = await catalogOf(restaurant, request);
      // A catalog loaded for another read, or held when the tag was made, may lack them.
      const catalog = request.includeFiscal ? await withFiscal(restaurant.id, request.channel, found) : found;
      const clock = localClock(request.at, state.timezone);
      const bytes = catalog.bytes;
      const plan = planMenu(catalog, { request, clock, acceptsScheduling: state.accepts_scheduling });
      // The first search or fiscal read made a part the cache's budget must count.
      if (catalog.bytes !== bytes) cache.set(cacheKey(restaurant.id, request.channel), catalog);
      return plan;
    },

    /**
     * What the answer depends on, for its ETag: the catalog version, the settings the plan reads,
     * the query, and the instant: as given (`at`, which the body echoes), or else the stretch
     * between schedule boundaries it falls in (schedule-window.ts). A `conditional` request's
     * tag needs the boundaries only, not the catalog (boundariesFor).
     */
    async tag(restaurant: Restaurant, query: MenuQuery, conditional = true): Promise<string> {
      const request = menuRequest(restaurant, query);
      const state = await restaurant.state();
      if (!state) throw errors.restaurantForbidden();
      let version = state.catalog_version;
      let when = `at=${request.at.toISOString()}`;
      if (query.at === undefined) {
        const found = await boundariesFor(restaurant, state, request, conditional);
        version = found.version;
        when = `window=${scheduleWindow(found.minutes, localClock(request.at, state.timezone))}`;
      }
      const { at: _at, ...rest } = request;
      const settings = `${version};${state.timezone};${state.accepts_scheduling}`;
      return `${settings}\n${when}\n${JSON.stringify(rest)}`;
    },
  };
}
