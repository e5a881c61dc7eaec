// Menu worlds for route tests, written with direct Kysely inserts (as the catalog routes and
// the importer would leave them). `menuWorld(db)` makes a restaurant and returns builders bound
// to it; ids come from the database.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../src/db/database.ts';
import type { FiscalValues } from '../../src/db/fiscal-columns.ts';
import type { Schedule } from '../../src/db/types.ts';

type RestaurantValues = { name?: string; timezone?: string; accepts_scheduling?: boolean };

type CategoryValues = {
  name: string;
  position?: number;
  available?: boolean;
  kind?: 'regular' | 'packaging' | 'marketplace_mirror';
  schedules?: Schedule[];
  removed_at?: Date | null;
};

type ProductValues = Partial<FiscalValues> & {
  name: string;
  description?: string | null;
  position?: number;
  price?: string;
  price_promotion?: string | null;
  delivery_price?: string | null;
  delivery_price_promotion?: string | null;
  available?: boolean;
  available_in_delivery?: boolean;
  sold_off?: boolean;
  use_weight?: boolean;
  has_starting_price?: boolean;
  charge_service_tax?: boolean;
  is_combo?: boolean;
  combo_min_items?: number | null;
  schedules?: Schedule[];
  fiscal_group_id?: number | null;
  cost?: string | null;
  removed_at?: Date | null;
};

type OptionValues = {
  name: string;
  price: string;
  delivery_price?: string | null;
  available?: boolean;
  removed_at?: Date | null;
};

type GroupValues = {
  name: string;
  min?: number;
  max?: number;
  removed_at?: Date | null;
  options?: OptionValues[];
};

export type MenuWorld = Awaited<ReturnType<typeof menuWorld>>;

export async function menuWorld(db: Db, restaurant: RestaurantValues = {}) {
  const { id: restaurantId } = await db
    .insertInto('restaurants')
    .values({
      name: 'Cantina Bella',
      timezone: 'America/Sao_Paulo',
      accepts_scheduling: false,
      ...restaurant,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const owned = { restaurant_id: restaurantId };

  async function category(values: CategoryValues): Promise<number> {
    const { schedules = [], ...rest } = values;
    const row = await db
      .insertInto('product_categories')
      .values({ ...owned, brand_id: null, ...rest, schedules: JSON.stringify(schedules) })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  async function product(categoryId: number, values: ProductValues): Promise<number> {
    const { schedules = [], ...rest } = values;
    const row = await db
      .insertInto('products')
      .values({
        ...owned,
        product_category_id: categoryId,
        brand_id: null,
        description: null,
        price: '10.00',
        combo_min_items: null,
        fiscal_group_id: null,
        cost: null,
        created_at: new Date(),
        updated_at: new Date(),
        ...rest,
        schedules: JSON.stringify(schedules),
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** A complement group with its options, in the given order (option positions 1, 2, ...). */
  async function group(values: GroupValues): Promise<{ id: number; options: number[] }> {
    const { options = [], ...rest } = values;
    const { id } = await db
      .insertInto('complement_categories')
      .values({ ...owned, ...rest })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (options.length === 0) return { id, options: [] };
    const rows = await db
      .insertInto('complement_options')
      .values(options.map((o, i) => ({ ...owned, complement_category_id: id, position: i + 1, ...o })))
      .returning('id')
      .execute();
    return { id, options: rows.map((r) => r.id) };
  }

  /** Links groups to a product in the given order. */
  async function link(productId: number, groupIds: number[]): Promise<void> {
    await db
      .insertInto('product_complement_categories')
      .values(
        groupIds.map((id, i) => ({
          ...owned,
          product_id: productId,
          complement_category_id: id,
          position: i,
        })),
      )
      .execute();
  }

  async function comboItems(comboId: number, itemIds: number[]): Promise<void> {
    await db
      .insertInto('combo_items')
      .values(
        itemIds.map((id, i) => ({ ...owned, combo_product_id: comboId, item_product_id: id, position: i })),
      )
      .execute();
  }

  return { restaurantId, category, product, group, link, comboItems };
}

/** GET /v1/menu with a query string ('' or 'channel=delivery&...'); asserts nothing. */
/** The restaurant's catalog_version as stored. */
export async function catalogVersion(db: Db, restaurantId: number) {
  const row = await db
    .selectFrom('restaurants')
    .select('catalog_version')
    .where('id', '=', restaurantId)
    .executeTakeFirstOrThrow();
  return row.catalog_version;
}

export function menuGet(app: FastifyInstance, authorization: string, query = '') {
  return app.inject({
    method: 'GET',
    url: `/v1/menu${query ? `?${query}` : ''}`,
    headers: { authorization },
  });
}

type MenuBody = { categories: { id: number; products: { id: number }[] }[] };

/** The product of `id` in a menu response body, or undefined when it is not listed. */
export function findProduct<T extends MenuBody>(
  body: T,
  id: number,
): T['categories'][number]['products'][number] | undefined {
  for (const category of body.categories) {
    const found = category.products.find((p) => p.id === id);
    if (found) return found;
  }
  return undefined;
}
