// A catalog world for product tests, inserted directly with Kysely: two restaurants, brands,
// categories (regular, unavailable, removed, packaging, marketplace mirror) and products with
// fiscal data. Ids come from the database; tests read them from the returned object.

import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { FiscalValues } from '../../src/db/fiscal-columns.ts';
import type { ProductsTable } from '../../src/db/types.ts';
import { bearerFor, sessionFor } from './tokens.ts';

type ProductOverrides = Partial<Omit<Insertable<ProductsTable>, 'restaurant_id'>> & Partial<FiscalValues>;

export async function addRestaurant(db: Db, name: string): Promise<number> {
  const row = await db.insertInto('restaurants').values({ name }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function addBrand(db: Db, restaurantId: number, name: string): Promise<number> {
  const row = await db
    .insertInto('brands')
    .values({
      restaurant_id: restaurantId,
      name,
      fantasy_name: null,
      cnpj: null,
      fiscal_token_encrypted: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addCategory(
  db: Db,
  restaurantId: number,
  values: {
    name: string;
    brand_id?: number | null;
    position?: number;
    available?: boolean;
    kind?: 'regular' | 'packaging' | 'marketplace_mirror';
    removed_at?: Date | null;
  },
): Promise<number> {
  const row = await db
    .insertInto('product_categories')
    .values({ restaurant_id: restaurantId, brand_id: null, schedules: '[]', ...values })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function addProduct(
  db: Db,
  restaurantId: number,
  categoryId: number,
  values: ProductOverrides = {},
): Promise<number> {
  const row = await db
    .insertInto('products')
    .values({
      restaurant_id: restaurantId,
      product_category_id: categoryId,
      brand_id: null,
      name: 'Produto',
      description: null,
      price: '10.00',
      combo_min_items: null,
      schedules: '[]',
      fiscal_group_id: null,
      cost: null,
      created_at: '2026-01-10T12:00:00.000Z',
      updated_at: '2026-01-10T12:00:00.000Z',
      ...(values as object),
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export const MARGHERITA_FISCAL = {
  ncm: '02109900',
  cfop: '5102',
  csosn: '0102',
  cest: '0100100',
  icms_origem: '0',
  aliquota: '18,00',
  fcp_percentual: '2',
  pis: '01',
  cofins: '01',
  pis_aliquota: '0.65',
  icms_valor: '',
  ibs_cbs_classificacao_tributaria: '000001',
};

export async function catalogWorld(db: Db, secret: string) {
  const restaurantA = await addRestaurant(db, 'Cantina Bella');
  const restaurantB = await addRestaurant(db, 'Sushi Kai');
  const brandA = await addBrand(db, restaurantA, 'Bella');
  const brandA2 = await addBrand(db, restaurantA, 'Bella Delivery');
  const brandB = await addBrand(db, restaurantB, 'Kai');
  const categories = {
    pizzas: await addCategory(db, restaurantA, { name: 'Pizzas', brand_id: brandA, position: 1 }),
    drinks: await addCategory(db, restaurantA, { name: 'Bebidas', brand_id: brandA2, position: 2 }),
    unavailable: await addCategory(db, restaurantA, { name: 'Sazonal', position: 3, available: false }),
    removed: await addCategory(db, restaurantA, { name: 'Antiga', position: 4, removed_at: new Date() }),
    packaging: await addCategory(db, restaurantA, { name: 'Embalagens', position: 5, kind: 'packaging' }),
    mirror: await addCategory(db, restaurantA, { name: 'iFood', position: 0, kind: 'marketplace_mirror' }),
    otherRestaurant: await addCategory(db, restaurantB, { name: 'Sushi', brand_id: brandB, position: 1 }),
  };
  const products = {
    margherita: await addProduct(db, restaurantA, categories.pizzas, {
      name: 'Margherita',
      brand_id: brandA,
      position: 1,
      price: '42.90',
      delivery_price: '45.90',
      fiscal_group_id: 77,
      cost: '12.34',
      ...MARGHERITA_FISCAL,
    }),
    calabresa: await addProduct(db, restaurantA, categories.pizzas, {
      name: 'Calabresa',
      brand_id: brandA,
      position: 2,
    }),
    soda: await addProduct(db, restaurantA, categories.drinks, {
      name: 'Refrigerante',
      brand_id: brandA2,
      position: 1,
    }),
    removed: await addProduct(db, restaurantA, categories.pizzas, {
      name: 'Retirada',
      position: 3,
      removed_at: new Date(),
    }),
    inRemovedCategory: await addProduct(db, restaurantA, categories.removed, { name: 'Esquecida' }),
    box: await addProduct(db, restaurantA, categories.packaging, { name: 'Caixa', price: '1.50' }),
    otherRestaurant: await addProduct(db, restaurantB, categories.otherRestaurant, {
      name: 'Temaki',
      brand_id: brandB,
    }),
  };
  const auth = {
    read: await bearerFor(db, [restaurantA], ['products:read'], 'reader'),
    write: await bearerFor(db, [restaurantA], ['products:read', 'products:write'], 'writer'),
    writeOnly: await bearerFor(db, [restaurantA], ['products:write'], 'write only'),
    writeB: await bearerFor(db, [restaurantB], ['products:read', 'products:write'], 'writer B'),
    partner: await bearerFor(db, [restaurantA, restaurantB], ['products:read', 'products:write'], 'partner'),
    menuOnly: await bearerFor(db, [restaurantA], ['menu:read'], 'menu'),
    session: sessionFor(restaurantA, secret),
  };
  return { restaurantA, restaurantB, brandA, brandA2, brandB, categories, products, auth };
}

export type CatalogWorld = Awaited<ReturnType<typeof catalogWorld>>;
