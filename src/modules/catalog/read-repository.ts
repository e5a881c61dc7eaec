// The SQL of GET /v1/products and GET /v1/products/{id}, written out once at load: a read builds
// no query per request (Kysely's builder is a visible share of a point read's CPU) and selects
// only the columns mapProduct reads. Every query is scoped by the restaurant.
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import { inSnapshot } from '../../db/transaction.ts';
import { MAPPED_COLUMNS, type MappedRow, selectList } from './product-map.ts';

const COLUMNS = selectList(MAPPED_COLUMNS, 'p');

type Version = { catalog_version: number };

const version = prepared<Version>('select catalog_version from restaurants where id = $1');

const product = prepared<MappedRow>(
  `select ${COLUMNS} from products p where p.restaurant_id = $1 and p.id = $2 and p.removed_at is null`,
);

/** Every non-removed category by position then id, with its non-removed products (or one null row). */
const declareListing = prepared<never>(
  `declare listing no scroll cursor for
   select c.id as c_id, c.name as c_name, c.position as c_position, c.available as c_available, ${COLUMNS}
   from product_categories c
   left join products p on p.restaurant_id = c.restaurant_id and p.product_category_id = c.id
     and p.removed_at is null
   where c.restaurant_id = $1 and c.removed_at is null
   order by c.position, c.id, p.position, p.id`,
);

/** Rows read per round trip: what a listing load holds as objects at once, whatever its size. */
export const LISTING_BATCH = 500;

const fetchListing = prepared<ListingRow>(`fetch ${LISTING_BATCH} from listing`);

export type ListingRow = { c_id: number; c_name: string; c_position: number; c_available: boolean } & (
  | MappedRow
  | { [K in keyof MappedRow]: null }
);

/** The restaurant's catalog version; undefined when there is no such restaurant. */
async function readCatalogVersion(db: Db, restaurantId: number): Promise<number | undefined> {
  return (await version(db, [restaurantId])).rows[0]?.catalog_version;
}

export async function findProduct(db: Db, restaurantId: number, id: number): Promise<MappedRow | undefined> {
  return (await product(db, [restaurantId, id])).rows[0];
}

/**
 * The legacy listing read through a cursor, LISTING_BATCH rows at a time, in one snapshot with
 * the catalog version it returns (so what is rendered is exactly that version).
 */
export async function readListing(
  db: Db,
  restaurantId: number,
  onRows: (rows: ListingRow[]) => void,
): Promise<number> {
  return inSnapshot(db, async (trx) => {
    const current = await readCatalogVersion(trx, restaurantId);
    await declareListing(trx, [restaurantId]);
    for (let more = true; more; ) {
      const { rows } = await fetchListing(trx, []);
      onRows(rows);
      more = rows.length === LISTING_BATCH;
    }
    return current ?? 0;
  });
}
