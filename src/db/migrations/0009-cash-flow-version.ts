// restaurants.cash_flow_version: a number that every write to what a cash-flow page shows changes
// (cash_flows, and the suppliers, bank accounts, payment methods and cost centres whose names it
// shows), so an instance can keep pages and their summaries (count, totals, page boundaries) in
// memory and check them with one indexed read (src/modules/financial).
//
// As catalog_version (0003) it is a deferred constraint trigger: the bump runs at commit, inside
// the writing transaction, after every other row lock, so it never deadlocks with a concurrent
// writer; it covers the importer, psql, deletes and truncate without them knowing about it. Unlike
// 0003, only the first write of a restaurant in a transaction queues an event (the WHEN clause
// marks the transaction): an import of a million rows queues one bump, not a million. A rolled
// back savepoint takes back both its mark and its queued event, so a later write queues again.
import { type Kysely, sql } from 'kysely';

const TABLES = ['cash_flows', 'suppliers', 'bank_accounts', 'payment_methods', 'cost_centres'];

// WHEN may read only NEW on insert and only OLD on delete: one trigger per case. The argument says
// which row names the restaurant; an update moving a row to another restaurant bumps both.
const CASES = [
  ['insert', 'insert', 'new', 'cash_flow_first_write(new.restaurant_id)'],
  ['update', 'update', 'new', 'cash_flow_first_write(new.restaurant_id)'],
  [
    'move',
    'update',
    'old',
    'old.restaurant_id <> new.restaurant_id and cash_flow_first_write(old.restaurant_id)',
  ],
  ['delete', 'delete', 'old', 'cash_flow_first_write(old.restaurant_id)'],
] as const;

const statements = [
  // Values come from one sequence: a version is never reused, even by a restaurant deleted and
  // created again under the same id, so an equal version always means the same rows.
  sql`create sequence cash_flow_versions`,
  sql`alter table restaurants add column cash_flow_version bigint not null default nextval('cash_flow_versions')`,
  sql`create function cash_flow_first_write(restaurant integer) returns boolean language plpgsql as $$
  begin
    if current_setting('comanda.cash_flows_queued_' || restaurant, true) is not distinct from 'yes' then
      return false;
    end if;
    perform set_config('comanda.cash_flows_queued_' || restaurant, 'yes', true);
    return true;
  end $$`,
  sql`create function bump_cash_flow_version() returns trigger language plpgsql as $$
  begin
    update restaurants set cash_flow_version = nextval('cash_flow_versions')
      where id = case when tg_argv[0] = 'old' then old.restaurant_id else new.restaurant_id end;
    return null;
  end $$`,
  sql`create function cash_flow_tables_truncated() returns trigger language plpgsql as $$
  begin
    update restaurants set cash_flow_version = nextval('cash_flow_versions');
    return null;
  end $$`,
  ...TABLES.flatMap((table) => [
    ...CASES.map(
      ([
        name,
        event,
        row,
        when,
      ]) => sql`create constraint trigger ${sql.id(`${table}_cash_flow_version_${name}`)}
        after ${sql.raw(event)} on ${sql.id(table)} deferrable initially deferred for each row
        when (${sql.raw(when)}) execute function bump_cash_flow_version(${sql.lit(row)})`,
    ),
    sql`create trigger ${sql.id(`${table}_cash_flow_version_truncate`)} after truncate on ${sql.id(table)}
      for each statement execute function cash_flow_tables_truncated()`,
  ]),
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
