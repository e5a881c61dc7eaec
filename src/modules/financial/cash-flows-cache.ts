// Keys, budgets and the read metric of the cash-flow listing's per-instance caches (kept by
// src/lib/versioned-cache.ts): rendered pages, and the summaries (count, totals, page boundaries;
// cash-flows-summary.ts) pages seek from. Each entry carries the restaurants.cash_flow_version it
// was read at, and the service serves it only after reading that same version again (migration
// 0009 changes it in the same transaction as any write to what a page shows), so a stale entry is
// never used, on this instance or another.
import { Counter } from 'prom-client';
import type { CashFlowFilter } from './cash-flows-query.ts';

const reads = new Counter({
  name: 'cash_flow_page_reads_total',
  help:
    'Cash-flow pages by how they were answered: the rendered page from memory; the page read with its ' +
    'summary from memory; with a summary loaded (shared by concurrent requests); or both read in one ' +
    'snapshot (a write landed in between)',
  labelNames: ['source'],
});

export type ReadSource = 'page' | 'summary' | 'load' | 'snapshot';
export const countRead = (source: ReadSource) => reads.inc({ source });

/** A summary counts up to 120 bytes a page of 100 entries (its learnt start): 4 MiB is some 35,000 pages. */
export const MAX_SUMMARY_BYTES = 4 * 1024 * 1024;
/** Rendered pages are up to about 45 KiB: 8 MiB holds some 180 of them. */
export const MAX_PAGE_BYTES = 8 * 1024 * 1024;

/** The summary key: the restaurant and every filter, never the offset. */
export function summaryKey(restaurantId: number, f: CashFlowFilter): string {
  return JSON.stringify([
    restaurantId,
    f.dateType,
    f.startDate,
    f.endDate,
    f.paid ?? null,
    f.isEarning ?? null,
    f.providerId ?? null,
    f.bankAccountId ?? null,
    f.paymentMethodId ?? null,
    f.categorySubcategoryId ?? null,
  ]);
}
