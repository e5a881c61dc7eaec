// Refresh-token families and their single-use tokens (`crt_` + 32 random bytes, stored as
// SHA-256). A family is the chain of rotations that starts at one exchange: it keeps the
// scopes and restaurants of that exchange and ends at its absolute limit; reusing a consumed
// token revokes all of it.
import type { Db } from '../../db/database.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';

const REFRESH_TOKEN_PREFIX = 'crt_';

export type Family = {
  id: number;
  apiKeyId: number | null;
  oauthClientId: number | null;
  restaurantIds: number[];
  scopes: string[];
  absoluteExpiresAt: Date;
};

export async function createFamily(
  db: Db,
  grant: Omit<Family, 'id' | 'absoluteExpiresAt'>,
  absoluteTtlSeconds: number,
  now: Date,
): Promise<Family> {
  const absoluteExpiresAt = new Date(now.getTime() + absoluteTtlSeconds * 1000);
  const row = await db
    .insertInto('refresh_token_families')
    .values({
      api_key_id: grant.apiKeyId,
      oauth_client_id: grant.oauthClientId,
      restaurant_ids: grant.restaurantIds,
      scopes: grant.scopes,
      created_at: now,
      absolute_expires_at: absoluteExpiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { ...grant, id: row.id, absoluteExpiresAt };
}

/** A new token of the family; its inactivity window never reaches past the family's end. */
export async function addRefreshToken(db: Db, family: Family, idleTtlSeconds: number, now: Date) {
  const token = newSecret(REFRESH_TOKEN_PREFIX);
  const idleEnd = now.getTime() + idleTtlSeconds * 1000;
  await db
    .insertInto('refresh_tokens')
    .values({
      family_id: family.id,
      token_hash: hashSecret(token),
      expires_at: new Date(Math.min(idleEnd, family.absoluteExpiresAt.getTime())),
      created_at: now,
    })
    .execute();
  return token;
}

/** The token and its family, expired or consumed included; locks the token row until commit. */
export async function findRefreshTokenForUpdate(db: Db, token: string) {
  const row = await db
    .selectFrom('refresh_tokens as rt')
    .innerJoin('refresh_token_families as f', 'f.id', 'rt.family_id')
    .leftJoin('oauth_clients as c', 'c.id', 'f.oauth_client_id')
    .select(['rt.id', 'rt.expires_at', 'rt.consumed_at', 'f.id as family_id', 'f.api_key_id'])
    .select(['f.oauth_client_id', 'c.client_id', 'f.restaurant_ids', 'f.scopes'])
    .select(['f.absolute_expires_at', 'f.revoked_at'])
    .where('rt.token_hash', '=', hashSecret(token))
    .forUpdate('rt')
    .executeTakeFirst();
  if (!row) return null;
  const family: Family = {
    id: row.family_id,
    apiKeyId: row.api_key_id,
    oauthClientId: row.oauth_client_id,
    restaurantIds: row.restaurant_ids,
    scopes: row.scopes,
    absoluteExpiresAt: row.absolute_expires_at,
  };
  return {
    id: row.id,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
    familyRevokedAt: row.revoked_at,
    clientId: row.client_id,
    family,
  };
}

/** Marks the token consumed unless another request already did: true for the one winner. */
export async function consumeRefreshToken(db: Db, id: number, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('refresh_tokens')
    .set({ consumed_at: now })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Ends the family (or every family of the API key): its refresh tokens and (access-tokens.ts
 * checks it) its access tokens.
 */
export async function revokeFamily(db: Db, family: number | { apiKeyId: number }, now: Date): Promise<void> {
  await db
    .updateTable('refresh_token_families')
    .set({ revoked_at: now })
    .where(
      typeof family === 'number' ? 'id' : 'api_key_id',
      '=',
      typeof family === 'number' ? family : family.apiKeyId,
    )
    .where('revoked_at', 'is', null)
    .execute();
}
