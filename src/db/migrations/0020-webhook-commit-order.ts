// An endpoint is handed the events of every transaction that commits after its creation (or its
// enabling again) committed. 0017's rule, "transactions after created_xid", missed two of them:
// a transaction that took its xid before the endpoint was created but wrote its events after (an
// older xid), and one that wrote its events before the endpoint existed and committed after it
// (no webhook_fanout row: no enabled endpoint was seen when the events were written).
//
// - created_snapshot: the snapshot of the statement that creates (or enables again) the endpoint,
//   taken with the restaurant's row locked (endpoint-repository.ts). A transaction it does not see
//   as committed commits after it: the endpoint is handed its events (fanout.ts). Endpoints of
//   before take the snapshot of 0017's rule (everything up to created_xid committed).
// - The webhook_fanout row is written at commit, by the deferred trigger that moves the
//   restaurant's events_version (0015), after its update of the restaurant's row: that update
//   waits for an endpoint's creation holding the row, and the insert's own snapshot then sees the
//   endpoint. A transaction whose trigger takes the row first commits before the endpoint's
//   snapshot is taken, so the endpoint does not see it and is not handed it.
import { type Kysely, sql } from 'kysely';

const statements = [
  sql`alter table webhook_endpoints add column created_snapshot pg_snapshot`,
  sql`update webhook_endpoints set created_snapshot =
    ((created_xid::text::numeric + 1)::text || ':' || (created_xid::text::numeric + 1)::text || ':')::pg_snapshot`,
  sql`alter table webhook_endpoints alter column created_snapshot set default pg_current_snapshot(),
    alter column created_snapshot set not null`,
  sql`create or replace function bump_events_version() returns trigger language plpgsql as $$
  declare
    restaurant integer := case when tg_argv[0] = 'old' then old.restaurant_id else new.restaurant_id end;
  begin
    update restaurants set events_version = nextval('events_versions') where id = restaurant;
    insert into webhook_fanout (restaurant_id, xid)
      select restaurant, pg_current_xact_id()
      where exists (select 1 from webhook_endpoints w where w.restaurant_id = restaurant and w.disabled_at is null)
        and exists (select 1 from events e where e.restaurant_id = restaurant and e.xid = pg_current_xact_id())
      on conflict do nothing;
    return null;
  end $$`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
