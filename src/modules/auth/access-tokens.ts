// Opaque access tokens: `cat_` + 32 random bytes, stored as SHA-256. A token is valid while
// unexpired, unrevoked, and neither its API key, its OAuth client nor its refresh-token family
// is revoked, so a revocation takes effect on the next request on every instance.
import type { Db } from '../../db/database.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';

export const ACCESS_TOKEN_PREFIX = 'cat_';

export type AccessGrant = {
  apiKeyId?: number | null;
  oauthClientId?: number | null;
  familyId?: string | number | null;
  restaurantIds: number[];
  scopes: string[];
};

export type ActiveAccessToken = {
  id: string;
  apiKeyId: number | null;
  apiKeyName: string | null;
  oauthClientId: number | null;
  clientId: string | null;
  restaurantIds: number[];
  scopes: string[];
};

export async function issueAccessToken(
  db: Db,
  grant: AccessGrant,
  ttlSeconds: number,
  now = new Date(),
): Promise<string> {
  const token = newSecret(ACCESS_TOKEN_PREFIX);
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: hashSecret(token),
      api_key_id: grant.apiKeyId ?? null,
      oauth_client_id: grant.oauthClientId ?? null,
      family_id: grant.familyId ?? null,
      restaurant_ids: grant.restaurantIds,
      scopes: grant.scopes,
      created_at: now,
      expires_at: new Date(now.getTime() + ttlSeconds * 1000),
    })
    .execute();
  return token;
}

export async function findActiveAccessToken(
  db: Db,
  token: string,
  now = new Date(),
): Promise<ActiveAccessToken | null> {
  const row = await db
    .selectFrom('access_tokens as t')
    .leftJoin('api_keys as k', 'k.id', 't.api_key_id')
    .leftJoin('oauth_clients as c', 'c.id', 't.oauth_client_id')
    .leftJoin('refresh_token_families as f', 'f.id', 't.family_id')
    .select([
      't.id',
      't.api_key_id',
      'k.name as api_key_name',
      't.oauth_client_id',
      'c.client_id',
      't.restaurant_ids',
      't.scopes',
    ])
    .where('t.token_hash', '=', hashSecret(token))
    .where('t.expires_at', '>', now)
    .where('t.revoked_at', 'is', null)
    .where((eb) =>
      eb.and([
        eb.or([eb('t.api_key_id', 'is', null), eb('k.revoked_at', 'is', null)]),
        eb.or([eb('t.api_key_id', 'is', null), eb('k.expires_at', 'is', null), eb('k.expires_at', '>', now)]),
        eb.or([eb('t.oauth_client_id', 'is', null), eb('c.revoked_at', 'is', null)]),
        eb.or([eb('t.family_id', 'is', null), eb('f.revoked_at', 'is', null)]),
      ]),
    )
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: String(row.id),
    apiKeyId: row.api_key_id,
    apiKeyName: row.api_key_name,
    oauthClientId: row.oauth_client_id,
    clientId: row.client_id,
    restaurantIds: row.restaurant_ids,
    scopes: row.scopes,
  };
}

/** Invalidates every live access token of an API key or OAuth client at once. */
export async function revokeAccessTokens(
  db: Db,
  owner: { apiKeyId?: number | null; oauthClientId?: number | null },
  now = new Date(),
) {
  let query = db.updateTable('access_tokens').set({ revoked_at: now }).where('revoked_at', 'is', null);
  if (owner.apiKeyId) query = query.where('api_key_id', '=', owner.apiKeyId);
  else if (owner.oauthClientId) query = query.where('oauth_client_id', '=', owner.oauthClientId);
  else return;
  await query.execute();
}
