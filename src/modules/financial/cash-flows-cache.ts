// Per-instance caches of the cash-flow listing: rendered pages, and the summaries (count, totals,
// page boundaries; cash-flows-summary.ts) pages seek from. Each entry carries the
// restaurants.cash_flow_version it was read at, and the service serves it only after reading that
// same version again (migration 0009 changes it in the same transaction as any write to what a
// page shows), so a stale entry is never used, on this instance or another.
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

export type VersionedLru<T extends { version: number }> = {
  /** The entry for `key`, marked most recently used, whatever its version (the caller checks). */
  get(key: string): T | undefined;
  /** Loads and keeps; concurrent loads of one key share the first one's result. */
  load(key: string, load: () => Promise<T>): Promise<T>;
  set(key: string, value: T): void;
};

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

export function createVersionedLru<T extends { version: number }>(
  maxBytes: number,
  sizeOf: (value: T) => number,
): VersionedLru<T> {
  const entries = new Map<string, { value: T; bytes: number }>();
  const loading = new Map<string, Promise<T>>();
  let cachedBytes = 0;

  function set(key: string, value: T): void {
    const previous = entries.get(key);
    if (previous) {
      if (previous.value.version > value.version) return;
      entries.delete(key);
      cachedBytes -= previous.bytes;
    }
    const bytes = sizeOf(value) + 2 * key.length + 100;
    if (bytes > maxBytes) return;
    entries.set(key, { value, bytes });
    cachedBytes += bytes;
    // Map order is use order (get re-inserts): the first entries are the least recently used.
    for (const [oldest, entry] of entries) {
      if (cachedBytes <= maxBytes) break;
      entries.delete(oldest);
      cachedBytes -= entry.bytes;
    }
  }

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    load(key, load) {
      let pending = loading.get(key);
      if (!pending) {
        pending = load().finally(() => loading.delete(key));
        loading.set(key, pending);
        pending.then(
          (value) => set(key, value),
          () => {},
        );
      }
      return pending;
    },
    set,
  };
}
