// Every data route with a request restaurant A may make, and the requests that name an id
// (of a product, category, brand, note, supplier...) so they can be tried with B's ids.
import type { InjectOptions } from 'fastify';
import type { Scope } from '../../src/http/principal.ts';
import type { WorldIds } from './world.ts';

export type RouteCase = {
  name: string;
  scope: Scope;
  request: (ids: WorldIds) => InjectOptions;
};

export type IdCase = {
  name: string;
  /** The request naming `id`; B's id must be answered exactly like an id that never existed. */
  request: (id: number, ids: WorldIds) => InjectOptions;
  /** Which of B's ids to try. */
  otherId: (ids: WorldIds) => number;
};

const json = (method: InjectOptions['method'], url: string, payload: unknown): InjectOptions => ({
  method,
  url,
  payload: payload as InjectOptions['payload'],
});

export const ROUTES: RouteCase[] = [
  {
    name: 'GET /v1/webhook-endpoints',
    scope: 'webhooks:read',
    request: () => ({ url: '/v1/webhook-endpoints' }),
  },
  { name: 'GET /v1/products', scope: 'products:read', request: () => ({ url: '/v1/products' }) },
  {
    name: 'GET /v1/products/{id}',
    scope: 'products:read',
    request: (ids) => ({ url: `/v1/products/${ids.a.products[0]}` }),
  },
  {
    name: 'GET /v1/products/{id}/history',
    scope: 'products:read',
    request: (ids) => ({ url: `/v1/products/${ids.a.products[0]}/history` }),
  },
  {
    name: 'POST /v1/products',
    scope: 'products:write',
    request: (ids) =>
      json('POST', '/v1/products', { name: 'New', product_category_id: ids.a.category, price: 5 }),
  },
  {
    name: 'PUT /v1/products/{id}',
    scope: 'products:write',
    request: (ids) => json('PUT', `/v1/products/${ids.a.products[0]}`, { description: 'edited' }),
  },
  {
    name: 'PUT /v1/products/bulk',
    scope: 'products:write',
    request: (ids) => json('PUT', '/v1/products/bulk', [{ id: ids.a.products[1], description: 'bulk' }]),
  },
  {
    name: 'PATCH /v1/products/{id}/availability',
    scope: 'products:write',
    request: (ids) => json('PATCH', `/v1/products/${ids.a.products[2]}/availability`, { available: true }),
  },
  { name: 'GET /v1/menu', scope: 'menu:read', request: () => ({ url: '/v1/menu' }) },
  {
    name: 'GET /v1/financial/cash-flows',
    scope: 'financial:read',
    request: () => ({ url: '/v1/financial/cash-flows?start_date=2026-03-01&end_date=2026-03-31' }),
  },
  {
    name: 'GET /v1/nfe-received',
    scope: 'nfe-received:read',
    request: () => ({
      url: '/v1/nfe-received?start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T23:59:59Z',
    }),
  },
  {
    name: 'GET /v1/nfe-received/info/{id}',
    scope: 'nfe-received:read',
    request: (ids) => ({ url: `/v1/nfe-received/info/${ids.a.nfe}` }),
  },
];

const product = (ids: WorldIds) => ids.b.products[0];
const period = 'start_date=2026-03-01&end_date=2026-03-31';
const nfePeriod = 'start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T23:59:59Z';

export const ID_CASES: IdCase[] = [
  { name: 'GET a product', otherId: product, request: (id) => ({ url: `/v1/products/${id}` }) },
  {
    name: 'the history of a product',
    otherId: product,
    request: (id) => ({ url: `/v1/products/${id}/history` }),
  },
  {
    name: 'PUT a product',
    otherId: product,
    request: (id) => json('PUT', `/v1/products/${id}`, { price: 1 }),
  },
  {
    name: 'PUT a product (dry run)',
    otherId: product,
    request: (id) => json('PUT', `/v1/products/${id}?dry_run=true`, { price: 1 }),
  },
  {
    name: 'PATCH availability',
    otherId: product,
    request: (id) => json('PATCH', `/v1/products/${id}/availability`, { available: false }),
  },
  {
    name: 'a bulk edit',
    otherId: product,
    request: (id) => json('PUT', '/v1/products/bulk', [{ id, price: 1 }]),
  },
  {
    name: 'a create into a category',
    otherId: (ids) => ids.b.category,
    request: (id) => json('POST', '/v1/products', { name: 'x', product_category_id: id, price: 1 }),
  },
  {
    name: 'a move into a category',
    otherId: (ids) => ids.b.category,
    request: (id, ids) =>
      json('PUT', '/v1/products/bulk', [{ id: ids.a.products[3], product_category_id: id }]),
  },
  {
    name: 'the menu of a category',
    otherId: (ids) => ids.b.category,
    request: (id) => ({ url: `/v1/menu?category_id=${id}` }),
  },
  {
    name: 'cash flows of a supplier',
    otherId: (ids) => ids.b.supplier,
    request: (id) => ({ url: `/v1/financial/cash-flows?${period}&provider_id=${id}` }),
  },
  {
    name: 'cash flows of a cost centre',
    otherId: (ids) => ids.b.costCentre,
    request: (id) => ({ url: `/v1/financial/cash-flows?${period}&category_subcategory_id=${id}` }),
  },
  {
    name: 'NF-e of a brand',
    otherId: (ids) => ids.b.brand,
    request: (id) => ({ url: `/v1/nfe-received?${nfePeriod}&brand_id=${id}` }),
  },
  {
    name: 'an NF-e detail',
    otherId: (ids) => ids.b.nfe,
    request: (id) => ({ url: `/v1/nfe-received/info/${id}` }),
  },
];
