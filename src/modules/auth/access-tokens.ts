// Opaque access tokens: `cat_` + 32 random bytes, stored as SHA-256. A token is valid while
// unexpired, unrevoked, and neither its API key, its OAuth client nor its refresh-token family
// is revoked, so a revocation takes effect on the next request on every instance.
import { CompiledQuery } from 'kysely';
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

/**
 * Every authenticated request runs this, so it is one constant statement rather than a query
 * built per call (building it cost more CPU than the database's own time for it).
 */
const ACTIVE_TOKEN_SQL = `select t.id, t.api_key_id, k.name as api_key_name, t.oauth_client_id, c.client_id,
  t.restaurant_ids, t.scopes
from access_tokens t
left join api_keys k on k.id = t.api_key_id
left join oauth_clients c on c.id = t.oauth_client_id
left join refresh_token_families f on f.id = t.family_id
where t.token_hash = $1 and t.expires_at > $2 and t.revoked_at is null
  and (t.api_key_id is null or (k.revoked_at is null and (k.expires_at is null or k.expires_at > $2)))
  and (t.oauth_client_id is null or c.revoked_at is null)
  and (t.family_id is null or f.revoked_at is null)`;

type ActiveTokenRow = {
  id: string | number;
  api_key_id: number | null;
  api_key_name: string | null;
  oauth_client_id: number | null;
  client_id: string | null;
  restaurant_ids: number[];
  scopes: string[];
};

export async function findActiveAccessToken(
  db: Db,
  token: string,
  now = new Date(),
): Promise<ActiveAccessToken | null> {
  const { rows } = await db.executeQuery<ActiveTokenRow>(
    CompiledQuery.raw(ACTIVE_TOKEN_SQL, [hashSecret(token), now]),
  );
  const row = rows[0];
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
