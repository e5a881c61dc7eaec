// SQL of installed applications: an installation is a row of oauth_client_restaurants, and an
// approval on the consent page adds an app_consents row beside it (scopes, who, when). Removing
// an installation deletes both and revokes, for that restaurant only, the application's
// refresh-token families, live access tokens and unused codes; a later consent installs it
// anew without bringing any of them back.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { recordAppEvent } from '../events/app-events.ts';

export function listInstallations(db: Db, restaurantId: number) {
  return db
    .selectFrom('oauth_client_restaurants as i')
    .innerJoin('oauth_clients as c', 'c.id', 'i.oauth_client_id')
    .leftJoin('app_consents as a', (join) =>
      join.onRef('a.oauth_client_id', '=', 'c.id').onRef('a.restaurant_id', '=', 'i.restaurant_id'),
    )
    .leftJoin('staff_users as u', 'u.id', 'a.staff_user_id')
    .select(['c.id', 'c.client_id', 'c.name', 'c.scopes', 'c.revoked_at'])
    .select(['a.scopes as approved_scopes', 'a.consented_at', 'u.email as approved_by'])
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
  const row = await db
    .selectFrom('oauth_clients')
    .select('name')
    .where('id', '=', oauthClientId)
    .executeTakeFirst();
  return row?.name ?? '';
}

type Consent = { oauthClientId: number; restaurantId: number; scopes: string[]; staffUserId: number };

/** Installs the application (if it was not) and adds the approved scopes to its consent. */
export async function recordConsent(db: Db, consent: Consent, now: Date): Promise<void> {
  const installed = await db
    .insertInto('oauth_client_restaurants')
    .values({ oauth_client_id: consent.oauthClientId, restaurant_id: consent.restaurantId })
    .onConflict((oc) => oc.doNothing())
    .returning('oauth_client_id')
    .executeTakeFirst();
  if (installed)
    await recordAppEvent(db, 'app.installed', consent.oauthClientId, consent.restaurantId, consent.scopes);
  await db
    .insertInto('app_consents')
    .values({
      oauth_client_id: consent.oauthClientId,
      restaurant_id: consent.restaurantId,
      scopes: consent.scopes,
      staff_user_id: consent.staffUserId,
      consented_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['oauth_client_id', 'restaurant_id']).doUpdateSet({
        scopes: sql`array(select distinct s from unnest(app_consents.scopes || excluded.scopes) as s)`,
        staff_user_id: (eb) => eb.ref('excluded.staff_user_id'),
        consented_at: (eb) => eb.ref('excluded.consented_at'),
      }),
    )
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
  await recordAppEvent(db, 'app.revoked', oauthClientId, restaurantId);
  await db
    .deleteFrom('app_consents')
    .where('oauth_client_id', '=', oauthClientId)
    .where('restaurant_id', '=', restaurantId)
    .execute();
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
