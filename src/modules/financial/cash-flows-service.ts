// The cash-flow listing use case. A page already rendered at the restaurant's current
// cash_flow_version is sent again as it is (the version comes with the token check). Otherwise the page is read with the
// summary of its period and filters (count, totals, the page starts learnt so far: a walk seeks
// each next page from the previous one's start instead of skipping every page before it). A kept
// summary is used while the version read in the page's own statement is the one it was computed
// at; if a write lands between computing a summary and reading the page, both are read again in
// one repeatable-read snapshot. Rendered pages are kept for the version they were read at.
import type { Static } from 'typebox';
import type { Db } from '../../db/database.ts';
import type { Restaurant } from '../../db/restaurant-state.ts';
import { inSnapshot } from '../../db/transaction.ts';
import { type KeptBody, keptBodies } from '../../http/compression.ts';
import { createVersionedCache, exact, type VersionedCache } from '../../lib/versioned-cache.ts';
import {
  countRead,
  MAX_PAGE_BYTES,
  MAX_SUMMARY_BYTES,
  type ReadSource,
  summaryKey,
} from './cash-flows-cache.ts';
import { mapCashFlow } from './cash-flows-map.ts';
import { type CashFlowFilter, parseCashFlowQuery } from './cash-flows-query.ts';
import { type CashFlowPage, type CashFlowRow, PAGE_SIZE, readPage } from './cash-flows-repository.ts';
import type { CashFlowsQuerystring, CashFlowsResponse } from './cash-flows-schema.ts';
import { type CashFlowSummary, learnStarts, loadSummary, pageStart } from './cash-flows-summary.ts';

type Listing = Static<typeof CashFlowsResponse>;
/** The route's own serialiser (its response schema), so a kept page has the bytes it always had. */
type Render = (listing: Listing) => string;

function listing(f: CashFlowFilter, summary: CashFlowSummary, page: CashFlowPage): Listing {
  const children = Map.groupBy(page.items, (row) => row.parent_id);
  return {
    total: summary.total,
    count: page.mains.length,
    remaining: Math.max(0, summary.total - f.offset - page.mains.length),
    limit: PAGE_SIZE,
    offset: f.offset,
    start_date: f.startDate,
    end_date: f.endDate,
    date_type: f.dateType,
    totals: summary.totals,
    cash_flows: page.mains.map((row) => mapCashFlow(row, children.get(row.id) ?? ([] as CashFlowRow[]))),
  };
}

type CashFlowCaches = {
  summaries: VersionedCache<CashFlowSummary, string>;
  pages: VersionedCache<KeptBody, string>;
};
/** An entry's size for the budget: its own and its key's (text keys of a hundred bytes or so). */
const withKey = (bytes: number) => bytes + 300;

/** One set per app instance; other instances' writes reach it through cash_flow_version. */
export function createCashFlowCaches(pageBytes = MAX_PAGE_BYTES): CashFlowCaches {
  return {
    // Counted at their largest: every page start of the period learnt.
    summaries: createVersionedCache({
      maxBytes: MAX_SUMMARY_BYTES,
      name: 'cash_flow_summaries',
      sizeOf: (s: CashFlowSummary) => withKey(120 * Math.ceil(s.total / PAGE_SIZE)),
    }),
    pages: createVersionedCache({
      maxBytes: pageBytes,
      name: 'cash_flow_pages',
      ...keptBodies,
    }),
  };
}

export function createCashFlowService(db: Db, { summaries, pages }: CashFlowCaches = createCashFlowCaches()) {
  /** The listing with the version it is exact for; the summary learns the page's starts. */
  async function read(restaurantId: number, f: CashFlowFilter, key: string) {
    const done = (source: ReadSource, summary: CashFlowSummary, page: CashFlowPage) => {
      countRead(source);
      learnStarts(summary, f.offset, page);
      return { version: page.version, listing: listing(f, summary, page) };
    };
    const cached = summaries.held(key);
    if (cached) {
      const page = await readPage(db, restaurantId, f, pageStart(cached, f.offset));
      if (page.version === cached.version) return done('summary', cached, page);
    }
    // Without a summary the page skips from the period's start, while the summary is computed.
    const [loaded, page] = await Promise.all([
      summaries.load(key, () => loadSummary(db, restaurantId, f)),
      readPage(db, restaurantId, f, { skip: f.offset }),
    ]);
    if (page.version === loaded.version) return done('load', loaded, page);
    // A write landed between the two statements: both again, in one snapshot.
    const snapshot = await inSnapshot(db, async (tx) => ({
      summary: await loadSummary(tx, restaurantId, f),
      page: await readPage(tx, restaurantId, f, { skip: f.offset }),
    }));
    summaries.set(key, snapshot.summary);
    return done('snapshot', snapshot.summary, snapshot.page);
  }

  return {
    /** The page as UTF-8 JSON. */
    async list(restaurant: Restaurant, query: CashFlowsQuerystring, render: Render): Promise<Buffer> {
      const restaurantId = restaurant.id;
      const f = parseCashFlowQuery(query);
      const key = summaryKey(restaurantId, f);
      const pageKey = `${key}${f.offset}`;
      const current = (await restaurant.state())?.cash_flow_version;
      const kept = current === undefined ? undefined : pages.current(pageKey, current);
      if (kept) {
        countRead('page');
        return kept.body;
      }
      const { version, listing } = await read(restaurantId, f, key);
      const body = exact(Buffer.from(render(listing)));
      pages.set(pageKey, { version, body });
      return body;
    },
  };
}
