// The loads of the tenants scenario: which restaurant each request reads (one hot restaurant,
// uniform over the first n, or Zipf with s = 1.1 over them, ranks in a seeded order unrelated to
// size), which route (the menu's four variants, one product, the listing, the first cash-flow
// page, the NF-e list, all of them mixed, or a revalidation of one of the menu's variants with the
// tag the server gave for it) and an autocannon window that sends them, counting each answer's
// status and time.
import autocannon from 'autocannon';
import { percentile } from './load.ts';
import { CASH_WINDOW, catalogBase, NFE_WINDOW, prng, type Tenant } from './tenants-data.ts';

export type Spread = 'hot' | 'uniform' | 'zipf';
export type Route = 'menu' | 'product' | 'listing' | 'cash-flows' | 'nfe' | 'mix' | 'poll';
// `poll` only in tenants-ab: the tenants run measures revalidations on the hot restaurant.
export const ROUTES: Route[] = ['menu', 'product', 'listing', 'cash-flows', 'nfe', 'mix'];

export type Target = { path: string; headers: Record<string, string> };
export type Result = {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number;
  /** Answers by status, answered or not. */
  statuses: Record<number, number>;
};
/** The menu's tag of each restaurant and variant (by `tagKey`), as readEach was given them. */
export type Tags = Map<string, string>;

/** Picks a restaurant of `list` by the spread; `hot` always answers the same one. */
export function picker(spread: Spread, list: Tenant[], hot: Tenant, seed = 11): () => Tenant {
  const random = prng(seed);
  if (spread === 'hot') return () => hot;
  if (spread === 'uniform') return () => list[Math.floor(random() * list.length)];
  const ranked = [...list];
  const order = prng(7);
  for (let i = ranked.length - 1; i > 0; i--) {
    const j = Math.floor(order() * (i + 1));
    [ranked[i], ranked[j]] = [ranked[j], ranked[i]];
  }
  const cumulative = new Float64Array(ranked.length);
  let sum = 0;
  for (let k = 0; k < ranked.length; k++) cumulative[k] = sum += 1 / (k + 1) ** 1.1;
  return () => {
    const x = random() * sum;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle] < x) low = middle + 1;
      else high = middle;
    }
    return ranked[low];
  };
}

const MENU_VARIANTS = [
  'channel=in_store',
  'channel=delivery',
  'channel=in_store&only_available=true',
  'channel=delivery&only_available=true',
];
const SINGLE: Exclude<Route, 'mix' | 'poll'>[] = ['menu', 'product', 'listing', 'cash-flows', 'nfe'];
const tagKey = (tenant: Tenant, path: string) => `${tenant.id} ${path}`;

/** The path of one request of `route` to `tenant`. */
export function pathOf(route: Route, tenant: Tenant, random: () => number): string {
  const kind = route === 'mix' ? SINGLE[Math.floor(random() * SINGLE.length)] : route;
  switch (kind) {
    case 'menu':
    case 'poll':
      return `/v1/menu?${MENU_VARIANTS[Math.floor(random() * MENU_VARIANTS.length)]}`;
    case 'product':
      return `/v1/products/${catalogBase(tenant.id) + 1 + Math.floor(random() * tenant.products)}`;
    case 'listing':
      return '/v1/products';
    case 'cash-flows':
      return `/v1/financial/cash-flows?start_date=${CASH_WINDOW.start_date}&end_date=${CASH_WINDOW.end_date}`;
    case 'nfe':
      return `/v1/nfe-received?start_date=${NFE_WINDOW.start_date}&end_date=${NFE_WINDOW.end_date}`;
  }
}

/** The headers a request of `route` adds: a `poll` sends the tag its restaurant's variant had. */
export function conditionOf(route: Route, tags: Tags, tenant: Tenant, path: string): Record<string, string> {
  return route === 'poll' ? { 'if-none-match': tags.get(tagKey(tenant, path))! } : {};
}

/**
 * One window of `seconds` at `connections`, each request from `next()`. `ok` says which statuses
 * count as answered (a revalidation expects 304).
 */
export async function loadWindow(
  url: string,
  next: () => Target,
  connections: number,
  seconds: number,
  ok: (status: number) => boolean = (status) => status === 200,
): Promise<Result> {
  const times: number[] = [];
  const statuses: Record<number, number> = {};
  let failures = 0;
  const run = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, ...next() }) }],
  });
  run.on('response', (_client, status, _bytes, ms) => {
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (ok(status)) times.push(ms);
    else failures++;
  });
  const result = await run;
  times.sort((a, b) => a - b);
  return {
    rps: times.length / result.duration,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    requests: times.length,
    failures: failures + result.errors + result.timeouts,
    statuses,
  };
}

/** Windows on several servers at once (connections split evenly), added up. */
export async function loadWindows(
  urls: string[],
  next: () => Target,
  connections: number,
  seconds: number,
  ok?: (status: number) => boolean,
): Promise<Result> {
  if (urls.length === 1) return loadWindow(urls[0], next, connections, seconds, ok);
  const each = await Promise.all(
    urls.map((url) => loadWindow(url, next, Math.round(connections / urls.length), seconds, ok)),
  );
  const statuses: Record<number, number> = {};
  for (const [status, count] of each.flatMap((r) => Object.entries(r.statuses)))
    statuses[Number(status)] = (statuses[Number(status)] ?? 0) + count;
  const requests = each.reduce((sum, r) => sum + r.requests, 0);
  return {
    rps: each.reduce((sum, r) => sum + r.rps, 0),
    // Percentiles of the windows' own: the worse of them stands for the pair.
    p50: Math.max(...each.map((r) => r.p50)),
    p99: Math.max(...each.map((r) => r.p99)),
    requests,
    failures: each.reduce((sum, r) => sum + r.failures, 0),
    statuses,
  };
}

/**
 * Every restaurant's menu (each variant), listing, first cash-flow page and NF-e list, once; the
 * menu's tags are kept in `tags` for `poll`.
 */
export async function readEach(
  url: string,
  list: Tenant[],
  authorization: (tenant: Tenant) => string,
  tags: Tags = new Map(),
): Promise<Tags> {
  const random = prng(3);
  const queue = list.flatMap((t) =>
    ['menu', 'listing', 'cash-flows', 'nfe'].flatMap((route) =>
      (route === 'menu' ? MENU_VARIANTS : ['']).map((variant) => ({
        tenant: t,
        path: variant ? `/v1/menu?${variant}` : pathOf(route as Route, t, random),
      })),
    ),
  );
  const worker = async () => {
    for (let job = queue.pop(); job; job = queue.pop()) {
      // As the load reads it: without Accept-Encoding (fetch would ask for gzip).
      const headers = { authorization: authorization(job.tenant), 'accept-encoding': 'identity' };
      const res = await fetch(`${url}${job.path}`, { headers });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${job.path}: ${res.status}`);
      const tag = res.headers.get('etag');
      if (job.path.startsWith('/v1/menu?') && tag) tags.set(tagKey(job.tenant, job.path), tag);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return tags;
}
