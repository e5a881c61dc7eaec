// SQL of the console's API key pages: the keys that act for one restaurant. Keys are written
// and revoked through the auth module (storeApiKey, revokeApiKey).
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

function keysQuery(db: Db, restaurantId: number) {
  return db
    .selectFrom('api_keys as k')
    .select(['k.id', 'k.name', 'k.prefix', 'k.environment', 'k.scopes', 'k.created_at', 'k.last_used_at'])
    .select(['k.expires_at', 'k.revoked_at'])
    .select(
      sql<number[]>`array(select r.restaurant_id from api_key_restaurants r
        where r.api_key_id = k.id order by r.restaurant_id)`.as('restaurant_ids'),
    )
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('api_key_restaurants as mine')
          .select('mine.api_key_id')
          .whereRef('mine.api_key_id', '=', 'k.id')
          .where('mine.restaurant_id', '=', restaurantId),
      ),
    );
}

export type KeyRow = Awaited<ReturnType<ReturnType<typeof keysQuery>['executeTakeFirstOrThrow']>>;

/** Live keys first, newest first. */
export function listKeys(db: Db, restaurantId: number): Promise<KeyRow[]> {
  return keysQuery(db, restaurantId).orderBy(sql`k.revoked_at is not null`).orderBy('k.id', 'desc').execute();
}

export function findKey(db: Db, restaurantId: number, id: number): Promise<KeyRow | undefined> {
  return keysQuery(db, restaurantId).where('k.id', '=', id).executeTakeFirst();
}
