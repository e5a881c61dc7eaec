// restaurants.catalog_version (0003, 0011) takes its values from one sequence, as cash_flow_version
// (0009), nfe_version (0010) and events_version (0015) do: a version is never reused, even by a
// restaurant deleted and created again under the same id, so an equal version always means the
// same rows. Counted per restaurant from 0 (0003), a restaurant created again would reach its former
// versions, and an instance holding its former catalog (menu, listing) would serve it under them, as
// would a 304 to a tag of the former restaurant. The sequence starts past every version stored.
import { type Kysely, sql } from 'kysely';

const statements = [
  sql`create sequence catalog_versions`,
  sql`select setval('catalog_versions', coalesce((select max(catalog_version) from restaurants), 0) + 1)`,
  sql`alter table restaurants alter column catalog_version set default nextval('catalog_versions')`,
  sql`create or replace function bump_catalog_row() returns trigger language plpgsql as $$
  begin
    update restaurants set catalog_version = nextval('catalog_versions')
      where id = case when tg_argv[0] = 'old' then old.restaurant_id else new.restaurant_id end;
    return null;
  end $$`,
  sql`create or replace function catalog_truncated() returns trigger language plpgsql as $$
  begin
    update restaurants set catalog_version = nextval('catalog_versions');
    return null;
  end $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
