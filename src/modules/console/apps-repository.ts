// SQL of installed applications: an installation is a row of oauth_client_restaurants. Removing
// one deletes that row and revokes, for that restaurant only, the application's refresh-token
// families, live access tokens and unused authorization codes; a later consent installs it anew
// without bringing any of them back.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export function listInstallations(db: Db, restaurantId: number) {
  return db
    .selectFrom('oauth_client_restaurants as i')
    .innerJoin('oauth_clients as c', 'c.id', 'i.oauth_client_id')
    .select(['c.id', 'c.client_id', 'c.name', 'c.scopes', 'c.grant_types', 'c.revoked_at', 'c.created_at'])
    .select(
      sql<Date | null>`(select max(t.created_at) from access_tokens t
        where t.oauth_client_id = c.id and t.restaurant_ids @> array[i.restaurant_id])`.as('last_used_at'),
    )
    .where('i.restaurant_id', '=', restaurantId)
    .orderBy('c.name')
    .orderBy('c.id')
    .execute();
}

export async function clientName(db: Db, oauthClientId: number): Promise<string> {
  const row = await db.selectFrom('oauth_clients').select('name').where('id', '=', oauthClientId).executeTakeFirst();
  return row?.name ?? '';
}

export async function insertInstallation(db: Db, oauthClientId: number, restaurantId: number): Promise<void> {
  await db
    .insertInto('oauth_client_restaurants')
    .values({ oauth_client_id: oauthClientId, restaurant_id: restaurantId })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Ends one restaurant's installation; false when there was none. Run inside a transaction. */
export async function deleteInstallation(db: Db, oauthClientId: number, restaurantId: number, now: Date) {
  const removed = await db
    .deleteFrom('oauth_client_restaurants')
    .where('oauth_client_id', '=', oauthClientId)
    .where('restaurant_id', '=', restaurantId)
    .executeTakeFirst();
  if (!Number(removed.numDeletedRows)) return false;
  const here = sql<boolean>`restaurant_ids @> array[${restaurantId}::integer]`;
  await db
    .updateTable('refresh_token_families')
    .set({ revoked_at: now })
    .where('oauth_client_id', '=', oauthClientId)
    .where('revoked_at', 'is', null)
    .where(here)
    .execute();
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('oauth_client_id', '=', oauthClientId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .where(here)
    .execute();
  await db
    .updateTable('authorization_codes')
    .set({ expires_at: now })
    .where('oauth_client_id', '=', oauthClientId)
    .where('restaurant_id', '=', restaurantId)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', now)
    .execute();
  return true;
}
