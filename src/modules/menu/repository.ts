// The menu's SQL: one statement whatever the menu size. Only what the menu
// shows is read: regular, non-removed categories; non-removed products, groups and options.
import type { Db } from '../../db/database.ts';
import { FISCAL_COLUMNS } from '../../db/fiscal-columns.ts';
import { prepared } from '../../db/prepared.ts';
import { FLAG_FIELDS, MONEY_FIELDS } from '../../db/product-columns.ts';
import type { MenuCategoryInput, MenuGroupInput, MenuProductInput, MenuSchedule } from './types.ts';

/** A product as read: the resolution's input without what the menu computes itself. */
export type ProductRow = Omit<MenuProductInput, 'combo_available_items' | 'complement_category_ids'> & {
  /**
   * The fiscal projection as a JSON array of its values in FISCAL_COLUMNS order: one text to parse
   * instead of 32, and the same text for the same values (catalog.ts keeps each distinct one once).
   * Null in rows loaded without the fiscal projections.
   */
  fiscal: string | null;
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

/** The product columns: expression, name and type (the last row of the statement holds nulls of them). */
const PRODUCT_COLUMNS: [string, string, string][] = [
  ['id', 'id', 'int'],
  ['product_category_id', 'product_category_id', 'int'],
  ['name', 'name', 'text'],
  ['description', 'description', 'text'],
  ['position', 'position', 'int'],
  // Money as text: a JSON number would turn "5.00" into 5.
  ...MONEY_FIELDS.map((column): [string, string, string] => [`${column}::text`, column, 'text']),
  ...FLAG_FIELDS.map((column): [string, string, string] => [column, column, 'boolean']),
  ['is_combo', 'is_combo', 'boolean'],
  ['combo_min_items', 'combo_min_items', 'int'],
  ['schedules', 'schedules', 'jsonb'],
  // to_json of an array: the same JSON array as json_build_array, in about half its time. Only when
  // asked ($2): it was a third of the statement's time and of the text it sends.
  [
    `case when $2::boolean then to_json(array[${FISCAL_COLUMNS.map((column) => `"${column}"`).join(', ')}])::text end`,
    'fiscal',
    'text',
  ],
];

/** `json_agg` of a subquery's rows in its own order; an empty array when it has none. */
const list = (query: string, order: string) =>
  `coalesce((select json_agg(x order by ${order}) from (${query}) x), '[]')`;

const REST = `json_build_object(
  'version', (select catalog_version from restaurants where id = $1),
  'categories', ${list(
    `select id, name, position, available, schedules from product_categories
     where restaurant_id = $1 and kind = 'regular' and removed_at is null`,
    'x.position, x.id',
  )},
  'groups', ${list(
    `select g.id, g.name, g.min, g.max, ${list(
      `select id, name, price::text as price, delivery_price::text as delivery_price, available, position
       from complement_options where restaurant_id = g.restaurant_id and complement_category_id = g.id
         and removed_at is null`,
      'x.position, x.id',
    )} as options
     from complement_categories g where g.restaurant_id = $1 and g.removed_at is null`,
    'x.id',
  )},
  'links', (select coalesce(array_agg(array[product_id, complement_category_id, position]), '{}')
    from product_complement_categories where restaurant_id = $1),
  'comboItems', ${list(
    `select c.combo_product_id, i.available, i.available_in_delivery from combo_items c
     join products i on i.restaurant_id = c.restaurant_id and i.id = c.item_product_id
     where c.restaurant_id = $1 and i.removed_at is null and not i.sold_off`,
    'x.combo_product_id',
  )}
)`;

/**
 * Links come as [product_id, complement_category_id, position] triples, unsorted: a third of the
 * text, no objects to parse, and sorting them here costs less than in the statement.
 */
type RestDocument = Omit<CatalogRows, 'products' | 'links'> & {
  version: number | null;
  links: [number, number, number][];
};

/** A product's groups in link order: by position, then group id. */
const linkOrder = (a: [number, number, number], b: [number, number, number]) =>
  a[0] - b[0] || a[2] - b[2] || a[1] - b[1];

/**
 * The whole catalog in one statement, so one snapshot and one round trip: the products as rows
 * (many of them, parsed column by column), and one row holding the rest (categories, groups with
 * their options, links, combo items and the version) as one small JSON document. Unsorted:
 * sorting 2,000 wide rows was a fifth of the statement's time; productsByCategory orders each
 * category's few products.
 */
const catalogRows = prepared<ProductRow & { part: number; rest: RestDocument | null }>(
  `select 0 as part, ${PRODUCT_COLUMNS.map(([expression, name]) => `${expression} as "${name}"`).join(', ')},
     null::json as rest
   from products where restaurant_id = $1 and removed_at is null
   union all
   select 1, ${PRODUCT_COLUMNS.map(([, , type]) => `null::${type}`).join(', ')}, ${REST}`,
);

/**
 * Everything the menu shows, read in one snapshot so the parts agree with each other and with
 * `version`; the fiscal projections only `withFiscal` (ProductRow.fiscal is null without).
 */
export async function loadCatalogRows(db: Db, restaurantId: number, withFiscal = true): Promise<CatalogRows> {
  const { rows } = await catalogRows(db, [restaurantId, withFiscal]);
  // The rest's row comes last in practice; nothing but its part says so.
  let at = rows.length - 1;
  while (rows[at].part !== 1) at--;
  const { version, links, ...rest } = rows.splice(at, 1)[0].rest as RestDocument;
  return {
    ...rest,
    version: version ?? 0,
    links: links
      .sort(linkOrder)
      .map(([product_id, complement_category_id]) => ({ product_id, complement_category_id })),
    products: rows,
  };
}

/**
 * The schedules of what the catalog lists, each distinct one once, with the catalog version, in
 * one statement and so one snapshot: those of the listed categories (regular, not removed) and of
 * their non-removed products, the rows loadCatalogRows reads and productsByCategory keeps. An ETag
 * needs only their boundaries (schedule-window.ts): a few dozen rows where the catalog is all of it.
 */
const catalogSchedules = prepared<{ version: number | null; schedules: [number, string, string][] }>(
  `select (select catalog_version from restaurants where id = $1) as version,
     coalesce((select jsonb_agg(distinct jsonb_build_array(s -> 'weekday', s -> 'start', s -> 'end'))
       from (select jsonb_array_elements(c.schedules) as s from product_categories c
             where c.restaurant_id = $1 and c.kind = 'regular' and c.removed_at is null
             union all
             select jsonb_array_elements(p.schedules) from products p
             join product_categories c on c.restaurant_id = p.restaurant_id and c.id = p.product_category_id
             where p.restaurant_id = $1 and p.removed_at is null
               and c.kind = 'regular' and c.removed_at is null) x), '[]') as schedules`,
);

export async function loadCatalogSchedules(
  db: Db,
  restaurantId: number,
): Promise<{ version: number | null; schedules: MenuSchedule[] }> {
  const { rows } = await catalogSchedules(db, [restaurantId]);
  const { version, schedules } = rows[0];
  return { version, schedules: schedules.map(([weekday, start, end]) => ({ weekday, start, end })) };
}
