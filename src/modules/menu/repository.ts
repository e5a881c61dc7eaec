// The menu's SQL: a constant number of queries whatever the menu size. Only what the menu
// shows is read: regular, non-removed categories; non-removed products, groups and options.
import { sql } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import type { Db } from '../../db/database.ts';
import { FISCAL_COLUMNS } from '../../db/fiscal-columns.ts';
import { FLAG_FIELDS, MONEY_FIELDS } from '../../db/product-columns.ts';
import type { MenuCategoryInput, MenuGroupInput, MenuProductInput } from './types.ts';

/** A product as read: the resolution's input without what the menu computes itself. */
export type ProductRow = Omit<MenuProductInput, 'combo_available_items' | 'complement_category_ids'> & {
  /**
   * The fiscal projection as a JSON array of its values in FISCAL_COLUMNS order: one text to parse
   * instead of 32, and the same text for the same values (catalog.ts keeps each distinct one once).
   */
  fiscal: string;
};

export type GroupRow = MenuGroupInput;

export type CatalogRows = {
  version: number;
  categories: MenuCategoryInput[];
  products: ProductRow[];
  groups: GroupRow[];
  links: { product_id: number; complement_category_id: number }[];
  /** Combo items that can be chosen on some channel: not removed and not sold out. */
  comboItems: { combo_product_id: number; available: boolean; available_in_delivery: boolean }[];
};

/** Everything the menu shows, read in one snapshot so the parts agree with each other and with `version`. */
export async function loadCatalogRows(db: Db, restaurantId: number): Promise<CatalogRows> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const restaurant = await trx
        .selectFrom('restaurants')
        .select('catalog_version')
        .where('id', '=', restaurantId)
        .executeTakeFirst();
      const categories = await trx
        .selectFrom('product_categories')
        .select(['id', 'name', 'position', 'available', 'schedules'])
        .where('restaurant_id', '=', restaurantId)
        .where('kind', '=', 'regular')
        .where('removed_at', 'is', null)
        .orderBy('position')
        .orderBy('id')
        .execute();
      const products = await trx
        .selectFrom('products')
        .select([
          'id',
          'product_category_id',
          'name',
          'description',
          'position',
          ...MONEY_FIELDS,
          ...FLAG_FIELDS,
          'is_combo',
          'combo_min_items',
          'schedules',
          sql<string>`json_build_array(${sql.join(FISCAL_COLUMNS.map((column) => sql.ref(column)))})::text`.as(
            'fiscal',
          ),
        ])
        .where('restaurant_id', '=', restaurantId)
        .where('removed_at', 'is', null)
        .orderBy('position')
        .orderBy('id')
        .execute();
      const groups = await trx
        .selectFrom('complement_categories as g')
        .select((eb) => [
          'g.id',
          'g.name',
          'g.min',
          'g.max',
          jsonArrayFrom(
            eb
              .selectFrom('complement_options as o')
              // Money as text: a JSON number would turn "5.00" into 5.
              .select([
                'o.id',
                'o.name',
                sql<string>`o.price::text`.as('price'),
                sql<string | null>`o.delivery_price::text`.as('delivery_price'),
                'o.available',
              ])
              .whereRef('o.restaurant_id', '=', 'g.restaurant_id')
              .whereRef('o.complement_category_id', '=', 'g.id')
              .where('o.removed_at', 'is', null)
              .orderBy('o.position')
              .orderBy('o.id'),
          ).as('options'),
        ])
        .where('g.restaurant_id', '=', restaurantId)
        .where('g.removed_at', 'is', null)
        .execute();
      const links = await trx
        .selectFrom('product_complement_categories')
        .select(['product_id', 'complement_category_id'])
        .where('restaurant_id', '=', restaurantId)
        .orderBy('product_id')
        .orderBy('position')
        .orderBy('complement_category_id')
        .execute();
      const comboItems = await trx
        .selectFrom('combo_items as c')
        .innerJoin('products as i', (join) =>
          join.onRef('i.restaurant_id', '=', 'c.restaurant_id').onRef('i.id', '=', 'c.item_product_id'),
        )
        .select(['c.combo_product_id', 'i.available', 'i.available_in_delivery'])
        .where('c.restaurant_id', '=', restaurantId)
        .where('i.removed_at', 'is', null)
        .where('i.sold_off', '=', false)
        .execute();
      return {
        version: restaurant?.catalog_version ?? 0,
        categories,
        products: products as ProductRow[],
        groups,
        links,
        comboItems,
      };
    });
}
