// A restaurant's catalog in bulk SQL: the menu of the former bench/menu.ts (25 products per
// category, a packaging category, add-on groups and options, combos, schedules, six fiscal
// attributes) at any size, plus a default brand. Flags follow the product number (i % 7, i % 40...)
// and prices come from random() after setseed(), so every run writes the same catalog.
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { FISCAL_COLUMNS } from '../src/db/fiscal-columns.ts';

export type CatalogSet = { restaurantId: number; products: number };

const PER_CATEGORY = 25;
const LUNCH = JSON.stringify([1, 2, 3, 4, 5].map((weekday) => ({ weekday, start: '11:00', end: '15:00' })));
const FRIDAY_NIGHT = JSON.stringify([{ weekday: 5, start: '18:00', end: '23:30' }]);
const FISCAL = FISCAL_COLUMNS.slice(0, 6);
const VERSION = "timestamptz '2026-01-10T12:00:00Z'";

const money = (min: number, max: number) => `round((${min} + random() * ${max - min})::numeric, 2)`;

/** Ids of the restaurant's rows: one range per restaurant, so explicit ids never collide. */
export const catalogIds = (restaurantId: number) => restaurantId * 100_000;

export async function seedCatalog(db: Db, set: CatalogSet): Promise<void> {
  const r = set.restaurantId;
  const base = catalogIds(r);
  const categories = Math.ceil(set.products / PER_CATEGORY);
  const groups = Math.max(6, Math.round(set.products * 0.03));
  await db.connection().execute(async (conn) => {
    const run = (query: string) => sql.raw(query).execute(conn);
    await run('set max_parallel_workers_per_gather = 0');
    await run(`select setseed(${(r % 100) / 100})`);
    await run(
      `insert into brands (id, restaurant_id, name, is_default) values (${base + 1}, ${r}, 'Bench', true)`,
    );
    await run(`insert into product_categories (id, restaurant_id, brand_id, name, position, available, kind, schedules)
      select ${base} + i + 1, ${r}, ${base + 1},
        case when i = ${categories} then 'Embalagens' else 'Categoria ' || (i + 1) end, i + 1, i % 80 <> 40,
        case when i = ${categories} then 'packaging' else 'regular' end,
        case when i % 10 = 5 and i < ${categories} then '${LUNCH}' else '[]' end::jsonb
      from generate_series(0, ${categories}) i`);
    await run(`insert into complement_categories (id, restaurant_id, name, min, max)
      select ${base} + g + 1, ${r}, 'Complemento ' || (g + 1), case when g % 3 = 0 then 1 else 0 end, 1 + g % 3
      from generate_series(0, ${groups - 1}) g`);
    await run(`insert into complement_options (restaurant_id, complement_category_id, name, price, delivery_price,
        available, position)
      select ${r}, g.id, 'Opção ' || k || ' do ' || g.name, ${money(0, 12)},
        case when random() < 0.3 then ${money(0, 14)} end, random() > 0.1, k
      from complement_categories g
      cross join lateral generate_series(1, 3 + (g.id % 4)) k
      where g.restaurant_id = ${r} order by g.id, k`);
    await run(`insert into products (id, restaurant_id, product_category_id, brand_id, position, name, description,
        price, price_promotion, delivery_price, delivery_price_promotion, available, available_in_delivery,
        sold_off, use_weight, has_starting_price, is_combo, combo_min_items, schedules,
        ${FISCAL.join(', ')}, created_at, updated_at)
      select ${base} + i + 1, ${r}, ${base} + 1 + i / ${PER_CATEGORY}, ${base + 1}, 1 + i % ${PER_CATEGORY},
        'Produto ' || (i + 1) || ' à moda da casa',
        case when i % 4 <> 0 then 'Descrição do produto ' || (i + 1) || ', com ingredientes selecionados e pão artesanal' end,
        ${money(5, 120)}, case when i % 7 = 0 then ${money(4, 100)} end,
        case when i % 3 = 0 then ${money(6, 130)} end, case when i % 11 = 0 then ${money(5, 110)} end,
        i % 40 <> 1, i % 45 <> 2, i % 50 = 3, i % 60 = 4, i % 13 = 5, i % 100 = 6,
        case when i % 100 = 6 then 2 end, case when i % 90 = 7 then '${FRIDAY_NIGHT}' else '[]' end::jsonb,
        ${FISCAL.map((_, k) => `'0${k}' || (i % 97)`).join(', ')}, ${VERSION}, ${VERSION}
      from generate_series(0, ${set.products - 1}) i`);
    await run(`insert into products (id, restaurant_id, product_category_id, brand_id, position, name, price,
        created_at, updated_at)
      select ${base + set.products} + k, ${r}, ${base + categories + 1}, ${base + 1}, k, 'Caixa ' || k, 1.50,
        ${VERSION}, ${VERSION}
      from generate_series(1, 10) k`);
    await run(`insert into product_complement_categories (restaurant_id, product_id, complement_category_id, position)
      select ${r}, ${base} + i + 1, ${base} + 1 + (i * 7 + k * 13) % ${groups}, k
      from generate_series(0, ${set.products - 1}) i cross join lateral generate_series(0, i % 4 - 1) k`);
    await run(`insert into combo_items (restaurant_id, combo_product_id, item_product_id, position)
      select ${r}, ${base} + i + 1, ${base} + i + 1 + k, k
      from generate_series(6, ${set.products - 4}, 100) i cross join generate_series(1, 3) k`);
  });
}
