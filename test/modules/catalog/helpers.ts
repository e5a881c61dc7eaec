// Shared by the catalog tests: one app and world per file, request shortcuts, the history reader.
import type { TestContext } from 'node:test';
import type { InjectOptions } from 'fastify';
import { FISCAL_COLUMNS } from '../../../src/db/fiscal-columns.ts';
import { buildTestApp } from '../../support/app.ts';
import { catalogWorld } from '../../support/catalog-world.ts';

export const PRODUCT_KEYS = [
  'id',
  'restaurant_id',
  'product_category_id',
  'name',
  'description',
  'price',
  'price_promotion',
  'delivery_price',
  'delivery_price_promotion',
  'available',
  'available_in_delivery',
  'sold_off',
  'use_weight',
  'has_starting_price',
  'charge_service_tax',
  'created_at',
  'updated_at',
  'fiscal',
  'fiscal_info',
].sort();

export const EMPTY_FISCAL = Object.fromEntries(FISCAL_COLUMNS.map((c) => [c, null]));

type Auth = { authorization: string };

export async function catalogApp(
  t: Pick<TestContext, 'after'>,
  options: Parameters<typeof buildTestApp>[1] = {},
) {
  const built = await buildTestApp(t, options);
  const world = await catalogWorld(built.ctx.db, built.ctx.secrets.sessionSecret);
  const call = (
    method: InjectOptions['method'],
    url: string,
    payload?: unknown,
    auth: Auth = world.auth.write,
  ) =>
    built.app.inject({
      method,
      url,
      headers: auth,
      ...(payload === undefined ? {} : { payload: payload as InjectOptions['payload'] }),
    });
  return {
    ...built,
    world,
    get: (url: string, auth: Auth = world.auth.read) => call('GET', url, undefined, auth),
    post: (payload: unknown, auth?: Auth) => call('POST', '/v1/products', payload, auth),
    put: (id: number | string, payload: unknown, auth?: Auth) =>
      call('PUT', `/v1/products/${id}`, payload, auth),
    bulk: (payload: unknown, auth?: Auth) => call('PUT', '/v1/products/bulk', payload, auth),
    patch: (id: number | string, payload: unknown, auth?: Auth) =>
      call('PATCH', `/v1/products/${id}/availability`, payload, auth),
    history: async (productId: number) =>
      built.ctx.db
        .selectFrom('product_changes')
        .select(['operation', 'actor', 'changes', 'restaurant_id'])
        .where('product_id', '=', productId)
        .orderBy('id')
        .execute(),
  };
}

export type CatalogApp = Awaited<ReturnType<typeof catalogApp>>;
