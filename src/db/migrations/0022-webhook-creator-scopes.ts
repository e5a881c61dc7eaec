// An endpoint made by an API key or an application (0021) is disabled when the credential loses the
// read scope of one of its event types, in the transaction that takes the scope away, whatever
// writes api_keys.scopes or oauth_clients.scopes (an import, the command line, plain SQL): a
// credential gets no event it may no longer read, as it may not subscribe to one (creation and
// enabling check the scopes, src/modules/webhooks/endpoint-service.ts). Its other endpoints, whose
// types it still reads, stay enabled.
//
// Which scopes read which type is defined once, in ../event-scopes.ts (EVENT_SCOPES of
// src/modules/events/event-types.ts). This migration creates only the table that holds it for SQL,
// event_type_scopes; ../migrate.ts writes its rows from that definition after the migrations, in
// their transaction, on every start and before every CLI command, so the triggers always read the
// definition of the code that runs, not a copy frozen here. A type the table does not name is not
// judged.
//
// Deferred constraint triggers, as 0021's: at commit they read the credential's scopes as the
// transaction leaves them (a scope taken away and given back disables nothing), lock the
// restaurants' rows in id order first, as disable_endpoints_of does and as a creation or an
// enabling does before it checks the credential's scopes (src/modules/webhooks/endpoint-repository.ts),
// and fail the disabled endpoints' pending deliveries as 0021 does. The reason names the scope(s)
// of the first type it may no longer read that it held before the change, e.g. "the API key that
// created it no longer has the scope products:read".
import { type Kysely, sql } from 'kysely';

const CREATORS = {
  key: 'the API key that created it',
  app: 'the application that created it',
};

const statements = [
  // position: the scope's place in EVENT_SCOPES, to name them in that order.
  sql`create table event_type_scopes (
    type text not null,
    scope text not null,
    position integer not null,
    primary key (type, scope)
  )`,
  // had: the credential's scopes before the change, to name the ones it lost.
  sql`create function disable_unreadable_endpoints(of_key integer, of_client integer, had text[], creator text)
  returns void language plpgsql as $$
  declare
    held text[];
    disabled integer[];
  begin
    perform 1 from restaurants where id in (
        select restaurant_id from api_key_restaurants where api_key_id = of_key
        union select restaurant_id from oauth_client_restaurants where oauth_client_id = of_client
        union select restaurant_id from webhook_endpoints where api_key_id = of_key or oauth_client_id = of_client)
      order by id for no key update;
    held := coalesce((select scopes from api_keys where id = of_key),
      (select scopes from oauth_clients where id = of_client), '{}');
    with unreadable as (
      select w.id, (
          select e.t from unnest(w.events) with ordinality as e(t, n)
          where exists (select 1 from event_type_scopes s where s.type = e.t)
            and not exists (select 1 from event_type_scopes s where s.type = e.t and s.scope = any(held))
          order by e.n limit 1
        ) as unread
      from webhook_endpoints w
      where (w.api_key_id = of_key or w.oauth_client_id = of_client) and w.disabled_at is null
    ), named as (
      select u.id, coalesce(
          (select array_agg(s.scope order by s.position) from event_type_scopes s
            where s.type = u.unread and s.scope = any(had)),
          (select array_agg(s.scope order by s.position) from event_type_scopes s where s.type = u.unread)
        ) as scopes
      from unreadable u where u.unread is not null
    ), off as (
      update webhook_endpoints w set disabled_at = now(), disabled_reason = creator || ' no longer has the '
        || case when cardinality(named.scopes) = 1 then 'scope ' else 'scopes ' end
        || array_to_string(named.scopes, ' and ')
      from named where w.id = named.id
      returning w.id
    )
    select coalesce(array_agg(id), '{}') into disabled from off;
    update webhook_deliveries set status = 'failed', completed_at = now()
    where id in (select id from webhook_deliveries where endpoint_id = any(disabled) and status = 'pending'
      for update skip locked);
  end $$`,
  sql`create function credential_scopes_lost() returns trigger language plpgsql as $$
  begin
    perform disable_unreadable_endpoints(case when tg_table_name = 'api_keys' then new.id end,
      case when tg_table_name = 'oauth_clients' then new.id end, old.scopes, tg_argv[0]);
    return null;
  end $$`,
  sql`create constraint trigger api_key_scopes_lost after update on api_keys deferrable initially deferred
    for each row when (not new.scopes @> old.scopes)
    execute function credential_scopes_lost(${sql.lit(CREATORS.key)})`,
  sql`create constraint trigger oauth_client_scopes_lost after update on oauth_clients
    deferrable initially deferred for each row when (not new.scopes @> old.scopes)
    execute function credential_scopes_lost(${sql.lit(CREATORS.app)})`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
