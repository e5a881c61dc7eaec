// SQL of the brand listing: a restaurant's brands that are not deleted, in id order. Only
// whether a fiscal token is stored is read, never the token.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export type BrandRow = {
  id: number;
  name: string;
  fantasy_name: string | null;
  cnpj: string | null;
  is_default: boolean;
  fiscal_configured: boolean;
};

export function listBrands(db: Db, restaurantId: number): Promise<BrandRow[]> {
  return db
    .selectFrom('brands')
    .select(['id', 'name', 'fantasy_name', 'cnpj', 'is_default'])
    .select(sql<boolean>`fiscal_token_encrypted is not null`.as('fiscal_configured'))
    .where('restaurant_id', '=', restaurantId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
}
