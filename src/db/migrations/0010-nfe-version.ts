// restaurants.nfe_version: a number that every write to what the received NF-e list shows changes
// (nfe_received, and brands: the brand shown with each note, the default brand and the brand
// filter), so an instance can keep rendered lists in memory and check them with one indexed read
// (src/modules/nfe/list-cache.ts).
//
// The same triggers as cash_flow_version (0009, which says why): deferred constraint triggers, so
// the bump runs at commit inside the writing transaction after every other row lock; only the
// first write of a restaurant in a transaction queues one; truncate moves every restaurant's.
import { type Kysely, sql } from 'kysely';

const TABLES = ['nfe_received', 'brands'];

// WHEN may read only NEW on insert and only OLD on delete: one trigger per case. The argument says
// which row names the restaurant; an update moving a row to another restaurant bumps both.
const CASES = [
  ['insert', 'insert', 'new', 'nfe_first_write(new.restaurant_id)'],
  ['update', 'update', 'new', 'nfe_first_write(new.restaurant_id)'],
  ['move', 'update', 'old', 'old.restaurant_id <> new.restaurant_id and nfe_first_write(old.restaurant_id)'],
  ['delete', 'delete', 'old', 'nfe_first_write(old.restaurant_id)'],
] as const;

const statements = [
  // Values come from one sequence: a version is never reused, even by a restaurant deleted and
  // created again under the same id, so an equal version always means the same rows.
  sql`create sequence nfe_versions`,
  sql`alter table restaurants add column nfe_version bigint not null default nextval('nfe_versions')`,
  sql`create function nfe_first_write(restaurant integer) returns boolean language plpgsql as $$
  begin
    if current_setting('comanda.nfe_queued_' || restaurant, true) is not distinct from 'yes' then
      return false;
    end if;
    perform set_config('comanda.nfe_queued_' || restaurant, 'yes', true);
    return true;
  end $$`,
  sql`create function bump_nfe_version() returns trigger language plpgsql as $$
  begin
    update restaurants set nfe_version = nextval('nfe_versions')
      where id = case when tg_argv[0] = 'old' then old.restaurant_id else new.restaurant_id end;
    return null;
  end $$`,
  sql`create function nfe_tables_truncated() returns trigger language plpgsql as $$
  begin
    update restaurants set nfe_version = nextval('nfe_versions');
    return null;
  end $$`,
  ...TABLES.flatMap((table) => [
    ...CASES.map(
      ([name, event, row, when]) => sql`create constraint trigger ${sql.id(`${table}_nfe_version_${name}`)}
        after ${sql.raw(event)} on ${sql.id(table)} deferrable initially deferred for each row
        when (${sql.raw(when)}) execute function bump_nfe_version(${sql.lit(row)})`,
    ),
    sql`create trigger ${sql.id(`${table}_nfe_version_truncate`)} after truncate on ${sql.id(table)}
      for each statement execute function nfe_tables_truncated()`,
  ]),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
