// Token endpoint and product routes: reads of the 2,000-product catalog, and writes (the former
// bench/bulk-edit.ts among them) on a catalog of their own that is seeded again on every run.
import { catalogIds } from './data-catalog.ts';
import { DATASETS } from './datasets.ts';
import { get, json, P99_TARGET_MS, type Scenario } from './scenario.ts';
import { exchangeRequest, refreshRequest } from './token-pool.ts';

const reads = DATASETS.menu2k;
const writes = DATASETS.writes;
const PRODUCTS = writes.set.products;
const BATCH = 100;
const firstId = catalogIds(writes.restaurantId) + 1;
const price = (n: number) => (100 + (n % 1_000_000)) / 100;

export const catalogScenarios: Scenario[] = [
  {
    id: 'token-exchange',
    label: 'POST /oauth/token (api_key)',
    dataset: reads,
    read: false,
    p99Target: P99_TARGET_MS,
    request: async (ctx) => exchangeRequest(ctx.credential(reads.restaurantId).apiKey),
  },
  {
    id: 'token-refresh',
    label: 'POST /oauth/token (refresh_token)',
    dataset: reads,
    read: false,
    p99Target: P99_TARGET_MS,
    // More tokens than connections: a request cut at the end of a window loses its successor.
    request: (ctx) => refreshRequest(ctx.send, ctx.credential(reads.restaurantId).apiKey, 100),
  },
  {
    id: 'product',
    label: 'GET /v1/products/{id}',
    dataset: reads,
    read: true,
    ratioTarget: 0.25,
    p99Target: P99_TARGET_MS,
    request: async (ctx) =>
      get(`/v1/products/${catalogIds(reads.restaurantId) + 1000}`, ctx.credential(reads.restaurantId)),
  },
  {
    id: 'products',
    label: 'GET /v1/products (legacy listing)',
    dataset: reads,
    read: true,
    ratioTarget: 0.5,
    p99Target: P99_TARGET_MS,
    request: async (ctx) => get('/v1/products', ctx.credential(reads.restaurantId)),
  },
  {
    id: 'product-put',
    label: 'PUT /v1/products/{id}',
    dataset: writes,
    read: false,
    p99Target: P99_TARGET_MS,
    request: async (ctx) =>
      json('PUT', ctx.credential(writes.restaurantId), (n) => ({
        path: `/v1/products/${firstId + (n % PRODUCTS)}`,
        body: { price: price(n) },
      })),
  },
  {
    id: 'products-bulk',
    label: 'PUT /v1/products/bulk (100 products)',
    dataset: writes,
    read: false,
    p99Target: P99_TARGET_MS,
    // Request n and n + 20 edit the same batch at different prices: every edit is a real write.
    request: async (ctx) =>
      json('PUT', ctx.credential(writes.restaurantId), (n) => {
        const batch = firstId + (n % (PRODUCTS / BATCH)) * BATCH;
        return {
          path: '/v1/products/bulk',
          body: Array.from({ length: BATCH }, (_, k) => ({ id: batch + k, price: price(n) })),
        };
      }),
  },
  {
    id: 'availability',
    label: 'PATCH /v1/products/{id}/availability',
    dataset: writes,
    read: false,
    p99Target: P99_TARGET_MS,
    // Each visit to a product flips its delivery availability.
    request: async (ctx) =>
      json('PATCH', ctx.credential(writes.restaurantId), (n) => ({
        path: `/v1/products/${firstId + (n % PRODUCTS)}/availability`,
        body: { available_in_delivery: Math.floor(n / PRODUCTS) % 2 === 1 },
      })),
  },
];
