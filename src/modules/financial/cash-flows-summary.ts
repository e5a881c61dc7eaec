// What every page of one period and set of filters shares: the count and the totals of the whole
// period (one statement that also reads the restaurant's cash_flow_version, so the summary is
// exact for that version), and the (date, id) of the first main entry of each page already read,
// so that the next page is a keyset seek instead of an OFFSET over the pages before it.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CashFlowFilter } from './cash-flows-query.ts';
import { type CashFlowPage, mainEntries, PAGE_SIZE, type PageStart } from './cash-flows-repository.ts';

export type CashFlowTotals = {
  total_earnings: string;
  total_earnings_paid: string;
  total_expenses: string;
  total_expenses_paid: string;
};

export type CashFlowSummary = {
  version: number;
  total: number;
  totals: CashFlowTotals;
  /** Page number -> its first main entry, learnt from the pages read at this version. */
  starts: Map<number, { date: string; id: number }>;
};

const sumOf = (condition: string) =>
  sql<string>`round(coalesce(sum(g.value) filter (where ${sql.raw(condition)}), 0), 2)::text`;

/** One scan of the covering index: four (is_earning, paid) groups, then the count and the totals. */
export async function loadSummary(db: Db, restaurantId: number, f: CashFlowFilter): Promise<CashFlowSummary> {
  const groups = mainEntries(db, restaurantId, f)
    .select(['c.is_earning', 'c.paid', sql<number>`count(*)`.as('n'), sql<string>`sum(c.value)`.as('value')])
    .groupBy(['c.is_earning', 'c.paid'])
    .as('g');
  const { version, total, ...totals } = await db
    .selectFrom(groups)
    .select([
      sql<number>`(select cash_flow_version from restaurants where id = ${restaurantId})`.as('version'),
      sql<number>`coalesce(sum(g.n), 0)::int`.as('total'),
      sumOf('g.is_earning').as('total_earnings'),
      sumOf('g.is_earning and g.paid').as('total_earnings_paid'),
      sumOf('not g.is_earning').as('total_expenses'),
      sumOf('not g.is_earning and g.paid').as('total_expenses_paid'),
    ])
    .executeTakeFirstOrThrow();
  return { version: version ?? -1, total, totals, starts: new Map() };
}

/**
 * Where the page at `offset` starts: from the nearest page start known at or before it (or the
 * period's beginning), skipping what lies between; null when it is past the last entry.
 */
export function pageStart(summary: CashFlowSummary, offset: number): PageStart | null {
  if (offset >= summary.total) return null;
  for (let page = Math.floor(offset / PAGE_SIZE); page >= 0; page--) {
    const from = summary.starts.get(page);
    if (from) return { from, skip: offset - page * PAGE_SIZE };
  }
  return { skip: offset };
}

/** Keeps the first entry of every page that `page` (read at `offset`, same version) contains. */
export function learnStarts(summary: CashFlowSummary, offset: number, page: CashFlowPage): void {
  const first = Math.ceil(offset / PAGE_SIZE) * PAGE_SIZE;
  for (let at = first; at < offset + page.mains.length; at += PAGE_SIZE) {
    const row = page.mains[at - offset];
    summary.starts.set(at / PAGE_SIZE, { date: row.sort_date, id: row.id });
  }
}
