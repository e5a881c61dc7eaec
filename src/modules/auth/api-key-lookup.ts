// The API key side of the token endpoint: a key found by the hash of what was presented (or
// by id, on refresh) with its restaurants, and its last use recorded.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Environment } from './api-keys.ts';

type KeyCredential = {
  id: number;
  environment: Environment;
  scopes: string[];
  restaurantIds: number[];
  /** Neither revoked nor expired. */
  usable: boolean;
};

export async function findApiKey(
  db: Db,
  by: { keyHash: string } | { id: number },
  now: Date,
): Promise<KeyCredential | null> {
  const query = db
    .selectFrom('api_keys as k')
    .select(['k.id', 'k.environment', 'k.scopes', 'k.revoked_at', 'k.expires_at'])
    .select(
      sql<number[]>`array(select r.restaurant_id from api_key_restaurants r
        where r.api_key_id = k.id order by r.restaurant_id)`.as('restaurant_ids'),
    );
  const row = await ('keyHash' in by
    ? query.where('k.key_hash', '=', by.keyHash)
    : query.where('k.id', '=', by.id)
  ).executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    environment: row.environment,
    scopes: row.scopes,
    restaurantIds: row.restaurant_ids,
    usable: row.revoked_at === null && (row.expires_at === null || row.expires_at > now),
  };
}

/**
 * Last use to the second: every exchange of one key (an integration with many workers) would
 * otherwise update the same row and queue behind the previous exchange's lock until its commit.
 */
export async function markApiKeyUsed(db: Db, id: number, now: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', new Date(now.getTime() - 1000))]),
    )
    .execute();
}
