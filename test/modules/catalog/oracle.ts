// The read routes as they were before the listing was rendered ahead: a Kysely query, mapProduct,
// and Fastify's serialiser for the Catalog and Product response schemas. Registered beside the
// real routes (without authentication) so tests can compare bytes.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../../src/http/errors.ts';
import {
  type ListedProductResponse,
  mapProduct,
  PRODUCT_COLUMNS,
  type ProductRow,
} from '../../../src/modules/catalog/product-map.ts';
import { Catalog, Product } from '../../../src/modules/catalog/response-schemas.ts';

type Instants = Omit<ProductRow, 'created_at' | 'updated_at'> & { created_at: Date; updated_at: Date };

/** A row read the plain way (Kysely, Dates) in the shape the service reads it (instants as ISO text). */
const asText = (row: Instants): ProductRow => ({
  ...row,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

const Params = Type.Object({ restaurantId: Type.Integer(), productId: Type.Optional(Type.Integer()) });

export function oracleRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const db = app.ctx.db;
  app.get(
    '/oracle/:restaurantId/products',
    { schema: { params: Params, response: { 200: Catalog } } },
    async (request) => {
      const rows = await db
        .selectFrom('product_categories as c')
        .leftJoin('products as p', (join) =>
          join
            .onRef('p.restaurant_id', '=', 'c.restaurant_id')
            .onRef('p.product_category_id', '=', 'c.id')
            .on('p.removed_at', 'is', null),
        )
        .select([
          'c.id as c_id',
          'c.name as c_name',
          'c.position as c_position',
          'c.available as c_available',
        ])
        .select(PRODUCT_COLUMNS.map((c) => `p.${c}` as const))
        .where('c.restaurant_id', '=', request.params.restaurantId)
        .where('c.removed_at', 'is', null)
        .orderBy('c.position')
        .orderBy('c.id')
        .orderBy('p.position')
        .orderBy('p.id')
        .execute();
      type Category = { id: number; name: string; position: number; available: boolean };
      const categories = new Map<number, Category & { products: ListedProductResponse[] }>();
      for (const row of rows) {
        let category = categories.get(row.c_id);
        if (!category) {
          const { c_id: id, c_name: name, c_position: position, c_available: available } = row;
          category = { id, name, position, available, products: [] };
          categories.set(row.c_id, category);
        }
        if (row.id !== null) category.products.push(mapProduct(asText(row as Instants), { alias: false }));
      }
      return [...categories.values()];
    },
  );
  app.get(
    '/oracle/:restaurantId/products/:productId',
    { schema: { params: Params, response: { 200: Product } } },
    async (request) => {
      const row = await db
        .selectFrom('products')
        .select(PRODUCT_COLUMNS)
        .where('restaurant_id', '=', request.params.restaurantId)
        .where('id', '=', request.params.productId ?? 0)
        .where('removed_at', 'is', null)
        .executeTakeFirst();
      if (!row) throw errors.productNotFound();
      return mapProduct(asText(row), { alias: true });
    },
  );
}

/** Validators of the documented response schemas. */
export function schemaValidators() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  return { catalog: ajv.compile(Catalog), product: ajv.compile(Product) };
}
