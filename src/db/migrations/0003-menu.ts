// restaurants.catalog_version: a counter every catalog write moves, so a menu cache on any
// instance can tell with one indexed read whether what it holds is still current.
//
// The bump is a deferred constraint trigger: it runs at commit, inside the writing transaction,
// after the writer took all its other row locks. An immediate trigger would lock the restaurant
// row at the first write and hold it while the transaction goes on to lock products, which
// deadlocks against a concurrent writer that locked a product first (SELECT ... FOR UPDATE).
// Every writer (catalog routes, importer, psql) bumps without knowing about it.
import { type Kysely, sql } from 'kysely';

const TABLES = [
  'products',
  'product_categories',
  'complement_categories',
  'complement_options',
  'product_complement_categories',
  'combo_items',
];

const statements = [
  sql`alter table restaurants add column catalog_version bigint not null default 0`,
  // One bump per restaurant and transaction is enough: readers see the writes and the bump
  // together at commit. The transaction-local setting remembers which restaurants were bumped.
  sql`create function bump_catalog_version(restaurant integer) returns void language plpgsql as $$
  begin
    if current_setting('comanda.catalog_bumped_' || restaurant, true) is distinct from 'yes' then
      update restaurants set catalog_version = catalog_version + 1 where id = restaurant;
      perform set_config('comanda.catalog_bumped_' || restaurant, 'yes', true);
    end if;
  end $$`,
  sql`create function catalog_row_changed() returns trigger language plpgsql as $$
  begin
    if tg_op <> 'INSERT' then perform bump_catalog_version(old.restaurant_id); end if;
    if tg_op <> 'DELETE' then perform bump_catalog_version(new.restaurant_id); end if;
    return null;
  end $$`,
  sql`create function catalog_truncated() returns trigger language plpgsql as $$
  begin
    update restaurants set catalog_version = catalog_version + 1;
    return null;
  end $$`,
  ...TABLES.flatMap((table) => [
    sql`create constraint trigger ${sql.id(`${table}_catalog_version`)}
      after insert or update or delete on ${sql.id(table)}
      deferrable initially deferred for each row execute function catalog_row_changed()`,
    sql`create trigger ${sql.id(`${table}_catalog_truncate`)}
      after truncate on ${sql.id(table)} for each statement execute function catalog_truncated()`,
  ]),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
