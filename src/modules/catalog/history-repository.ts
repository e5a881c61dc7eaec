// SQL of the product history (product_changes, written by the catalog writes). Scoped by the
// restaurant; pages walk the (restaurant_id, product_id, id desc) index by keyset, never by offset.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Change } from './edit-plan.ts';

export type ChangeRow = {
  /** bigint, read as a number by the int8 parser of db/database.ts. */
  id: number;
  operation: 'create' | 'edit' | 'bulk' | 'availability';
  /** What describePrincipal (http/principal.ts) stored, or the import's actor (import/product-history.ts). */
  actor:
    | { kind: 'api_key'; api_key_id: number; api_key_name: string }
    | { kind: 'oauth_client'; client_id: string }
    | { kind: 'restaurant_session'; session_id: string }
    | { kind: 'import' };
  changes: Change[];
  created_at: Date;
};

/** Whether the product is one the detail route would show (not removed, of this restaurant). */
export async function liveProductExists(db: Db, restaurantId: number, productId: number): Promise<boolean> {
  const row = await db
    .selectFrom('products')
    .select('id')
    .where('restaurant_id', '=', restaurantId)
    .where('id', '=', productId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Up to `limit` changes of the product, newest first, older than the change `beforeId` if given. */
export async function listChanges(
  db: Db,
  restaurantId: number,
  productId: number,
  beforeId: number | null,
  limit: number,
): Promise<ChangeRow[]> {
  let query = db
    .selectFrom('product_changes')
    .select(['id', 'operation', 'actor', 'changes', 'created_at'])
    .where('restaurant_id', '=', restaurantId)
    .where('product_id', '=', productId);
  if (beforeId !== null) query = query.where(sql<boolean>`id < ${beforeId}::bigint`);
  return (await query.orderBy('id', 'desc').limit(limit).execute()) as unknown as ChangeRow[];
}
