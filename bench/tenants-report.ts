// The tenants table (bench/results/latest-tenants.md): each route at one hot restaurant, spread
// uniformly and by Zipf over n restaurants, as ratios to hot measured in the same run; two
// instances; the first read of a menu; revalidation polling; compression (the hot menu, and the
// uniform spread with and without gzip); and issue 25's targets.
import type { Result, Route, Spread } from './tenants-load.ts';

type SizeRow = { route: Route; rss: number } & Record<Spread, Result>;
export type Measured = {
  sizes: {
    n: number;
    rows: SizeRow[];
    peakRss: number;
    load: string;
    /** Mean catalog size of the restaurants each spread reads: larger menus and listings cost more per read. */
    productsPerRead: Record<Spread, number>;
  }[];
  twoInstances: { spread: Spread; result: Result; rss: number }[];
  /** Until the headers (the server's time: load, assembly, plan), median and p99; until the last byte. */
  firstRead: {
    products: number;
    /** Accept-Encoding: identity (the load rows' answers), or gzip (compressed once per tag). */
    encoding: string;
    p50: number;
    p99: number;
    wholeP50: number;
    warmP50: number;
  }[];
  polling: { menu: Result; revalidated: Result }[];
  compression: { encoding: string; bytes: number; result: Result }[];
  /** The uniform spread at the largest n, without and with Accept-Encoding: gzip, in turns. */
  spreadGzip: { route: Route; identity: Result; gzip: Result }[];
};

type Meta = {
  started: Date;
  command: string;
  machine: string;
  loadStart: string;
  loadEnd: string;
  windows: string;
  seeding: string;
};

const LABELS: Record<Route, string> = {
  menu: 'GET /v1/menu (2 channels, with and without only_available)',
  product: 'GET /v1/products/{id}',
  listing: 'GET /v1/products (legacy listing)',
  'cash-flows': 'GET /v1/financial/cash-flows, first page',
  nfe: 'GET /v1/nfe-received',
  mix: 'all of the above, mixed',
  poll: 'GET /v1/menu with If-None-Match (tenants-ab only)',
};
/** Issue 25's floor of the uniform ratio at 1,000 restaurants. */
const UNIFORM_FLOOR: Partial<Record<Route, number>> = {
  menu: 0.3,
  listing: 0.3,
  product: 0.5,
  'cash-flows': 0.5,
  nfe: 0.5,
  mix: 0.3,
};
const ZIPF_FLOOR = 0.8;
const P99_MS = 50;

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(x < 10 ? 2 : 1) : '—');
const ratio = (x: number) => x.toFixed(2);
const failed = (r: Result) => (r.failures ? ` (${r.failures} failed)` : '');

export function renderTenants(m: Measured, meta: Meta): string {
  const misses: string[] = [];
  const largest = Math.max(...m.sizes.map((s) => s.n));
  const out = [
    '# Benchmark: many restaurants on one deployment (`tenants`)',
    '',
    `Run ${meta.started.toISOString().slice(0, 16).replace('T', ' ')} UTC: \`${meta.command}\`; ${meta.windows}.`,
    '',
    `- Machine: ${meta.machine}; load average (1 / 5 / 15 min) ${meta.loadStart} at the start, ${meta.loadEnd} at the end (other work shares these cores: compare ratios within the run).`,
    `- Data: 1,000 restaurants (median 163 products, 100 with 800 or more, five of 2,000; 278,479 products in all), ${meta.seeding}; one credential each.`,
    '- Server: `node src/main.ts` with the settings of `npm start`, PostgreSQL and Redis; every restaurant read once before the windows of its size. Ratios are to the hot restaurant (the one closest to 150 products) in the same run.',
    '',
    '## Spread over n restaurants, one instance',
    '',
    '| n | route | hot req/s | uniform req/s (ratio) | Zipf req/s (ratio) | p99 ms hot / uniform / Zipf | RSS MB |',
    '|--:|---|--:|--:|--:|--:|--:|',
  ];
  for (const size of m.sizes) {
    for (const row of size.rows) {
      const u = row.uniform.rps / row.hot.rps;
      const z = row.zipf.rps / row.hot.rps;
      out.push(
        `| ${n0(size.n)} | ${LABELS[row.route]} | ${n0(row.hot.rps)}${failed(row.hot)} | ` +
          `${n0(row.uniform.rps)} (${ratio(u)})${failed(row.uniform)} | ${n0(row.zipf.rps)} (${ratio(z)})${failed(row.zipf)} | ` +
          `${ms(row.hot.p99)} / ${ms(row.uniform.p99)} / ${ms(row.zipf.p99)} | ${n0(row.rss)} |`,
      );
      if (size.n !== largest) continue;
      const floor = UNIFORM_FLOOR[row.route];
      if (floor !== undefined && u < floor) misses.push(`${row.route}: uniform ${ratio(u)} < ${floor}`);
      if (z < ZIPF_FLOOR) misses.push(`${row.route}: Zipf ${ratio(z)} < ${ZIPF_FLOOR}`);
      for (const spread of ['hot', 'uniform', 'zipf'] as Spread[])
        if (row[spread].p99 >= P99_MS) misses.push(`${row.route}: ${spread} p99 ${ms(row[spread].p99)} ms`);
    }
  }
  out.push(
    '',
    `Peak RSS (VmHWM) per size: ${m.sizes.map((s) => `${n0(s.n)}: ${n0(s.peakRss)} MB`).join('; ')}.`,
    '',
    `Products per read (mean catalog size of the restaurants a spread reads; a menu or listing costs about in proportion): ${m.sizes
      .map(
        (s) =>
          `n=${n0(s.n)}: hot ${n0(s.productsPerRead.hot)}, uniform ${n0(s.productsPerRead.uniform)}, Zipf ${n0(s.productsPerRead.zipf)}`,
      )
      .join('; ')}.`,
  );
  for (const s of m.sizes) if (s.peakRss >= 300) misses.push(`RSS ${n0(s.peakRss)} MB at n=${s.n}`);
  const one = m.sizes.find((s) => s.n === largest)?.rows.find((r) => r.route === 'mix');
  out.push(
    '',
    `## Two instances on the same PostgreSQL and Redis, ${n0(largest)} restaurants, mixed load`,
    '',
  );
  out.push('| spread | req/s | vs one instance | p99 ms | peak RSS MB (larger) |', '|---|--:|--:|--:|--:|');
  for (const row of m.twoInstances) {
    const single = one?.[row.spread].rps;
    out.push(
      `| ${row.spread} | ${n0(row.result.rps)}${failed(row.result)} | ${single ? ratio(row.result.rps / single) : '—'} | ` +
        `${ms(row.result.p99)} | ${n0(row.rss)} |`,
    );
  }
  out.push(
    '',
    '## First read of a menu nobody read at its catalog version (one client, ms at the client)',
    '',
    "The server sends the headers once it has loaded, assembled and planned the menu: the time until then is the server's; the body follows as the socket takes it, as it does for a repeated read.",
    '',
  );
  out.push(
    '| products | Accept-Encoding | until the headers, median | p99 | until the last byte, median | a repeated read, last byte, median |',
    '|--:|---|--:|--:|--:|--:|',
  );
  for (const row of m.firstRead) {
    out.push(
      `| ${n0(row.products)} | ${row.encoding} | ${ms(row.p50)} | ${ms(row.p99)} | ${ms(row.wholeP50)} | ${ms(row.warmP50)} |`,
    );
    const limit = row.products <= 300 ? 5 : 30;
    // The target is the server's own work; a gzip answer adds compressing the body once per tag.
    if (row.encoding === 'identity' && row.p50 >= limit)
      misses.push(`first read of ${row.products} products: median ${ms(row.p50)} ms ≥ ${limit}`);
  }
  out.push('', '## Polling: If-None-Match on the hot menu', '');
  for (const { menu, revalidated } of m.polling)
    out.push(
      `Hot menu ${n0(menu.rps)} req/s (p99 ${ms(menu.p99)} ms); revalidations answered 304: ${n0(revalidated.rps)} req/s` +
        `${failed(revalidated)} (p99 ${ms(revalidated.p99)} ms), ratio ${ratio(revalidated.rps / menu.rps)}.`,
    );
  out.push('', '## Compression: the hot menu (in_store) by Accept-Encoding', '');
  out.push('| Accept-Encoding | bytes sent | req/s | p99 ms |', '|---|--:|--:|--:|');
  for (const row of m.compression)
    out.push(
      `| ${row.encoding} | ${n0(row.bytes)} | ${n0(row.result.rps)}${failed(row.result)} | ${ms(row.result.p99)} |`,
    );
  out.push(
    '',
    '## The uniform spread by Accept-Encoding (largest n)',
    '',
    'Most HTTP clients ask for gzip (the TypeScript client does). A cached answer is compressed once; one read back from its packed form is sent as its packed gzip bytes.',
    '',
    '| route | identity req/s | gzip req/s (ratio) | p99 ms identity / gzip |',
    '|---|--:|--:|--:|',
  );
  for (const { route, identity, gzip } of m.spreadGzip)
    out.push(
      `| ${LABELS[route]} | ${n0(identity.rps)}${failed(identity)} | ${n0(gzip.rps)}${failed(gzip)} (${ratio(gzip.rps / identity.rps)}) | ${ms(identity.p99)} / ${ms(gzip.p99)} |`,
    );
  out.push('', '## Targets of issue 25 (at the largest n)', '');
  out.push(misses.length ? misses.map((miss) => `- MISS ${miss}`).join('\n') : '- every target met');
  return `${out.join('\n')}\n`;
}
