// restaurants.events_version: a number that every write to a restaurant's events changes (the
// outbox's inserts, the retention purge's deletes, any other writer), so an instance can keep
// rendered pages of the event feed in memory and check them with the version read beside the
// token (src/modules/events/feed-cache.ts, which also says why a version alone is not enough).
//
// The triggers of cash_flow_version (0009, which says why): deferred constraint triggers, so the
// bump runs at commit inside the writing transaction after every other row lock; only the first
// write of a restaurant in a transaction queues one; truncate moves every restaurant's.
import { type Kysely, sql } from 'kysely';

// WHEN may read only NEW on insert and only OLD on delete: one trigger per case. The argument says
// which row names the restaurant; an update moving a row to another restaurant bumps both.
const CASES = [
  ['insert', 'insert', 'new', 'events_first_write(new.restaurant_id)'],
  ['update', 'update', 'new', 'events_first_write(new.restaurant_id)'],
  [
    'move',
    'update',
    'old',
    'old.restaurant_id <> new.restaurant_id and events_first_write(old.restaurant_id)',
  ],
  ['delete', 'delete', 'old', 'events_first_write(old.restaurant_id)'],
] as const;

const statements = [
  // Values come from one sequence: a version is never reused, even by a restaurant deleted and
  // created again under the same id, so an equal version always means the same rows.
  sql`create sequence events_versions`,
  sql`alter table restaurants add column events_version bigint not null default nextval('events_versions')`,
  sql`create function events_first_write(restaurant integer) returns boolean language plpgsql as $$
  begin
    if current_setting('comanda.events_queued_' || restaurant, true) is not distinct from 'yes' then
      return false;
    end if;
    perform set_config('comanda.events_queued_' || restaurant, 'yes', true);
    return true;
  end $$`,
  sql`create function bump_events_version() returns trigger language plpgsql as $$
  begin
    update restaurants set events_version = nextval('events_versions')
      where id = case when tg_argv[0] = 'old' then old.restaurant_id else new.restaurant_id end;
    return null;
  end $$`,
  sql`create function events_truncated() returns trigger language plpgsql as $$
  begin
    update restaurants set events_version = nextval('events_versions');
    return null;
  end $$`,
  ...CASES.map(
    ([name, event, row, when]) => sql`create constraint trigger ${sql.id(`events_version_${name}`)}
      after ${sql.raw(event)} on events deferrable initially deferred for each row
      when (${sql.raw(when)}) execute function bump_events_version(${sql.lit(row)})`,
  ),
  sql`create trigger events_version_truncate after truncate on events
    for each statement execute function events_truncated()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
