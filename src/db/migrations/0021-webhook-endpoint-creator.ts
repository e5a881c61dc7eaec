// A webhook endpoint made with an API key or an OAuth application names it (api_key_id or
// oauth_client_id, as the access token does); one made from a restaurant session (the console),
// or before this migration, names neither and is the restaurant's. An endpoint whose credential
// loses the restaurant is disabled in the transaction that takes the restaurant away, whatever
// writes it (the console, the CLI, an import), so it stops getting the restaurant's events:
//
// - an API key revoked, or given another secret (an import: whoever held the old one holds
//   nothing), or an application revoked: its endpoints at every restaurant;
// - a key's or an application's restaurant removed (api_key_restaurants, oauth_client_restaurants:
//   an application uninstalled): its endpoints at that restaurant, unless the same transaction
//   links it again (storeApiKey and the importer write a key's restaurants anew).
//
// Deferred constraint triggers, as 0015's: they run at commit, after every write of the
// transaction. They lock the restaurants' rows first, as an endpoint's creation and enabling do
// before they check the credential (src/modules/webhooks/endpoint-repository.ts): a creation that
// held the row first is disabled here once it commits, one that waited sees the credential gone.
// The endpoints' pending deliveries fail with them; one being recorded at that moment is skipped
// (skip locked, no lock waited for), and the worker claims no delivery of a disabled endpoint.
import { type Kysely, sql } from 'kysely';

const REASONS = {
  keyRevoked: 'the API key that created it was revoked',
  keyReplaced: 'the API key that created it was given a new secret',
  keyRemoved: 'the API key that created it no longer has access to the restaurant',
  appRevoked: 'the application that created it was revoked',
  appRemoved: 'the application that created it was removed from the restaurant',
};

const statements = [
  sql`alter table webhook_endpoints
    add column api_key_id integer references api_keys(id),
    add column oauth_client_id integer references oauth_clients(id),
    add constraint webhook_endpoints_one_creator check (api_key_id is null or oauth_client_id is null)`,
  sql`create index webhook_endpoints_api_key on webhook_endpoints (api_key_id) where api_key_id is not null`,
  sql`create index webhook_endpoints_oauth_client on webhook_endpoints (oauth_client_id)
    where oauth_client_id is not null`,
  // at_restaurant null: every restaurant of the credential.
  sql`create function disable_endpoints_of(of_key integer, of_client integer, at_restaurant integer, reason text)
  returns void language plpgsql as $$
  declare
    disabled integer[];
  begin
    if at_restaurant is not null then
      perform 1 from restaurants where id = at_restaurant for no key update;
    else
      perform 1 from restaurants where id in (
          select restaurant_id from api_key_restaurants where api_key_id = of_key
          union select restaurant_id from oauth_client_restaurants where oauth_client_id = of_client
          union select restaurant_id from webhook_endpoints where api_key_id = of_key or oauth_client_id = of_client)
        order by id for no key update;
    end if;
    with off as (
      update webhook_endpoints set disabled_at = now(), disabled_reason = reason
      where (api_key_id = of_key or oauth_client_id = of_client)
        and (at_restaurant is null or restaurant_id = at_restaurant) and disabled_at is null
      returning id
    )
    select coalesce(array_agg(id), '{}') into disabled from off;
    update webhook_deliveries set status = 'failed', completed_at = now()
    where id in (select id from webhook_deliveries where endpoint_id = any(disabled) and status = 'pending'
      for update skip locked);
  end $$`,
  sql`create function credential_revoked() returns trigger language plpgsql as $$
  begin
    perform disable_endpoints_of(case when tg_table_name = 'api_keys' then new.id end,
      case when tg_table_name = 'oauth_clients' then new.id end, null, tg_argv[0]);
    return null;
  end $$`,
  sql`create function credential_restaurant_removed() returns trigger language plpgsql as $$
  declare
    of_key integer := (to_jsonb(old) ->> 'api_key_id')::integer;
    of_client integer := (to_jsonb(old) ->> 'oauth_client_id')::integer;
  begin
    if not exists (select 1 from api_key_restaurants where api_key_id = of_key and restaurant_id = old.restaurant_id)
      and not exists (select 1 from oauth_client_restaurants
        where oauth_client_id = of_client and restaurant_id = old.restaurant_id) then
      perform disable_endpoints_of(of_key, of_client, old.restaurant_id, tg_argv[0]);
    end if;
    return null;
  end $$`,
  sql`create constraint trigger api_key_revoked after update on api_keys deferrable initially deferred
    for each row when (old.revoked_at is null and new.revoked_at is not null)
    execute function credential_revoked(${sql.lit(REASONS.keyRevoked)})`,
  sql`create constraint trigger api_key_replaced after update on api_keys deferrable initially deferred
    for each row when (old.key_hash <> new.key_hash and new.revoked_at is null)
    execute function credential_revoked(${sql.lit(REASONS.keyReplaced)})`,
  sql`create constraint trigger api_key_restaurant_removed after delete on api_key_restaurants
    deferrable initially deferred for each row
    execute function credential_restaurant_removed(${sql.lit(REASONS.keyRemoved)})`,
  sql`create constraint trigger oauth_client_revoked after update on oauth_clients deferrable initially deferred
    for each row when (old.revoked_at is null and new.revoked_at is not null)
    execute function credential_revoked(${sql.lit(REASONS.appRevoked)})`,
  sql`create constraint trigger oauth_client_restaurant_removed after delete on oauth_client_restaurants
    deferrable initially deferred for each row
    execute function credential_restaurant_removed(${sql.lit(REASONS.appRemoved)})`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
