// The loads of the tenants scenario: which restaurant each request reads (one hot restaurant,
// uniform over the first n, or Zipf with s = 1.1 over them, ranks in a seeded order unrelated to
// size), which route (the menu's four variants, one product, the listing, the first cash-flow
// page, the NF-e list, or all of them mixed) and an autocannon window that sends them, counting
// each answer's status and time.
import autocannon from 'autocannon';
import { percentile } from './load.ts';
import { CASH_WINDOW, catalogBase, NFE_WINDOW, prng, type Tenant } from './tenants-data.ts';

export type Spread = 'hot' | 'uniform' | 'zipf';
export type Route = 'menu' | 'product' | 'listing' | 'cash-flows' | 'nfe' | 'mix';
export const ROUTES: Route[] = ['menu', 'product', 'listing', 'cash-flows', 'nfe', 'mix'];

export type Target = { path: string; headers: Record<string, string> };
export type Result = { rps: number; p50: number; p99: number; requests: number; failures: number };

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
const SINGLE: Exclude<Route, 'mix'>[] = ['menu', 'product', 'listing', 'cash-flows', 'nfe'];

/** The path of one request of `route` to `tenant`. */
export function pathOf(route: Route, tenant: Tenant, random: () => number): string {
  const kind = route === 'mix' ? SINGLE[Math.floor(random() * SINGLE.length)] : route;
  switch (kind) {
    case 'menu':
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
  let failures = 0;
  const run = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, ...next() }) }],
  });
  run.on('response', (_client, status, _bytes, ms) => {
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
  };
}

/** Windows on several servers at once (connections split evenly), added up. */
export async function loadWindows(
  urls: string[],
  next: () => Target,
  connections: number,
  seconds: number,
): Promise<Result> {
  if (urls.length === 1) return loadWindow(urls[0], next, connections, seconds);
  const each = await Promise.all(
    urls.map((url) => loadWindow(url, next, Math.round(connections / urls.length), seconds)),
  );
  const requests = each.reduce((sum, r) => sum + r.requests, 0);
  return {
    rps: each.reduce((sum, r) => sum + r.rps, 0),
    // Percentiles of the windows' own: the worse of them stands for the pair.
    p50: Math.max(...each.map((r) => r.p50)),
    p99: Math.max(...each.map((r) => r.p99)),
    requests,
    failures: each.reduce((sum, r) => sum + r.failures, 0),
  };
}

/** Every restaurant's menu (both channels), listing, first cash-flow page and NF-e list, once. */
export async function readEach(
  url: string,
  list: Tenant[],
  authorization: (tenant: Tenant) => string,
): Promise<void> {
  const random = prng(3);
  const queue = list.flatMap((t) =>
    ['menu', 'listing', 'cash-flows', 'nfe'].flatMap((route) =>
      (route === 'menu' ? ['in_store', 'delivery'] : ['']).map((channel) => ({
        tenant: t,
        path: channel ? `/v1/menu?channel=${channel}` : pathOf(route as Route, t, random),
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
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}
