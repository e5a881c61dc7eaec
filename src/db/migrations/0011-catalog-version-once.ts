// restaurants.catalog_version (0003) moves once per restaurant and transaction. With a deferred
// trigger call queued per written row, a bulk edit of 100 products runs 100 of them at commit
// (about 2 ms of a 2.5 ms commit). These triggers are those of cash_flow_version (0009) and
// nfe_version (0010): the first write of a restaurant in a transaction queues the one bump, the
// others queue nothing. The bump runs at commit (0003 says why), and a truncate moves every
// restaurant's.
import { type Kysely, sql } from 'kysely';

const TABLES = [
  'products',
  'product_categories',
  'complement_categories',
  'complement_options',
  'product_complement_categories',
  'combo_items',
];

// WHEN may read only NEW on insert and only OLD on delete: one trigger per case. The argument says
// which row names the restaurant; an update moving a row to another restaurant bumps both.
const CASES = [
  ['insert', 'insert', 'new', 'catalog_first_write(new.restaurant_id)'],
  ['update', 'update', 'new', 'catalog_first_write(new.restaurant_id)'],
  [
    'move',
    'update',
    'old',
    'old.restaurant_id <> new.restaurant_id and catalog_first_write(old.restaurant_id)',
  ],
  ['delete', 'delete', 'old', 'catalog_first_write(old.restaurant_id)'],
] as const;

const statements = [
  sql`create function catalog_first_write(restaurant integer) returns boolean language plpgsql as $$
  begin
    if current_setting('comanda.catalog_queued_' || restaurant, true) is not distinct from 'yes' then
      return false;
    end if;
    perform set_config('comanda.catalog_queued_' || restaurant, 'yes', true);
    return true;
  end $$`,
  sql`create function bump_catalog_row() returns trigger language plpgsql as $$
  begin
    update restaurants set catalog_version = catalog_version + 1
      where id = case when tg_argv[0] = 'old' then old.restaurant_id else new.restaurant_id end;
    return null;
  end $$`,
  ...TABLES.flatMap((table) => [
    sql`drop trigger ${sql.id(`${table}_catalog_version`)} on ${sql.id(table)}`,
    ...CASES.map(
      ([
        name,
        event,
        row,
        when,
      ]) => sql`create constraint trigger ${sql.id(`${table}_catalog_version_${name}`)}
        after ${sql.raw(event)} on ${sql.id(table)} deferrable initially deferred for each row
        when (${sql.raw(when)}) execute function bump_catalog_row(${sql.lit(row)})`,
    ),
  ]),
  sql`drop function catalog_row_changed()`,
  sql`drop function bump_catalog_version(integer)`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
