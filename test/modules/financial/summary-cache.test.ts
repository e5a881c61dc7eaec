import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { register } from 'prom-client';
import { restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createVersionedCache, type VersionedCache } from '../../../src/lib/versioned-cache.ts';
import { summaryKey } from '../../../src/modules/financial/cash-flows-cache.ts';
import { type CashFlowFilter, parseCashFlowQuery } from '../../../src/modules/financial/cash-flows-query.ts';
import {
  createCashFlowCaches,
  createCashFlowService,
} from '../../../src/modules/financial/cash-flows-service.ts';
import {
  type CashFlowSummary,
  learnStarts,
  pageStart,
} from '../../../src/modules/financial/cash-flows-summary.ts';
import { createTestDatabase } from '../../support/database.ts';
import { buildFinancialWorld } from '../../support/financial-world.ts';
import { referenceListing } from './reference-listing.ts';

const Q1 = { start_date: '2026-01-01', end_date: '2026-03-31' };

const summary = (version: number, pages: number): CashFlowSummary => ({
  version,
  total: pages * 100,
  totals: {
    total_earnings: '0.00',
    total_earnings_paid: '0.00',
    total_expenses: '0.00',
    total_expenses_paid: '0.00',
  },
  starts: new Map(),
});

test('a summary key names the restaurant and every filter, never the offset', () => {
  const base = parseCashFlowQuery(Q1);
  const key = summaryKey(1, base);
  assert.notEqual(summaryKey(2, base), key);
  assert.equal(summaryKey(1, { ...base, offset: 300 }), key);
  const changes: Partial<CashFlowFilter>[] = [
    { dateType: 'competence_date' },
    { startDate: '2026-01-02' },
    { endDate: '2026-03-30' },
    { paid: false },
    { paid: true },
    { isEarning: false },
    { providerId: 1 },
    { bankAccountId: 1 },
    { paymentMethodId: 1 },
    { categorySubcategoryId: 1 },
  ];
  const keys = changes.map((change) => summaryKey(1, { ...base, ...change }));
  assert.equal(new Set([key, ...keys]).size, changes.length + 1);
});

const lru = (maxBytes = 1_000_000) =>
  createVersionedCache<CashFlowSummary, string>({ maxBytes, sizeOf: (s) => s.total / 2 });

test('a page seeks from the nearest page start learnt, and past the end reads nothing', () => {
  const s = summary(1, 4);
  s.total = 350;
  const rows = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: 1000 + from + i, sort_date: `day ${from + i}` }));
  const page = (offset: number, n: number) => ({ version: 1, mains: rows(offset, n), items: [] }) as never;
  assert.deepEqual(pageStart(s, 120), { skip: 120 }, 'nothing learnt: from the period start');
  learnStarts(s, 0, page(0, 100));
  learnStarts(s, 150, page(150, 100));
  learnStarts(s, 300, page(300, 50));
  assert.deepEqual([...s.starts.keys()].sort(), [0, 2, 3]);
  assert.deepEqual(s.starts.get(2), { date: 'day 200', id: 1200 });
  assert.deepEqual(pageStart(s, 120), { from: { date: 'day 0', id: 1000 }, skip: 120 });
  assert.deepEqual(pageStart(s, 250), { from: { date: 'day 200', id: 1200 }, skip: 50 });
  assert.deepEqual(pageStart(s, 349), { from: { date: 'day 300', id: 1300 }, skip: 49 });
  assert.equal(pageStart(s, 350), null);
  assert.equal(pageStart(s, 2147483647), null);
});

test('a cache drops the least recently used entries past its byte cap', async () => {
  // Each counts 50 kB: three fit in 160 kB, four do not.
  const cache = lru(160_000);
  for (const key of ['a', 'b', 'c']) await cache.load(key, async () => summary(1, 1000));
  assert.ok(cache.held('a'));
  await cache.load('d', async () => summary(1, 1000));
  assert.equal(cache.held('b'), undefined, 'b was the least recently used');
  assert.ok(cache.held('a') && cache.held('c') && cache.held('d'));
  await cache.load('huge', async () => summary(1, 10_000));
  assert.equal(cache.held('huge'), undefined, 'a summary larger than the cap is not kept');
  assert.ok(cache.held('a'), 'nor does it evict the others');
});

test('concurrent loads of a key share one; a failed load is not kept', async () => {
  const cache = lru();
  let loads = 0;
  const slow = async () => {
    loads++;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return summary(5, 2);
  };
  const [x, y] = await Promise.all([cache.load('k', slow), cache.load('k', slow)]);
  assert.equal(loads, 1);
  assert.equal(x, y);
  await assert.rejects(
    cache.load('bad', async () => Promise.reject(new Error('down'))),
    /down/,
  );
  assert.equal(cache.held('bad'), undefined);
  assert.equal((await cache.load('bad', async () => summary(1, 1))).version, 1, 'the next load runs again');
});

test('an older summary never replaces a newer one', () => {
  const cache = lru();
  cache.set('k', summary(7, 1));
  cache.set('k', summary(6, 3));
  assert.equal(cache.held('k')?.version, 7);
  cache.set('k', summary(8, 2));
  assert.equal(cache.held('k')?.version, 8);
});

test('a summary read at another version than its page is never used: both are read in one snapshot', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const db = database.db;
  await buildFinancialWorld(db);
  const caches = createCashFlowCaches();
  // Each summary comes back as if read just before a write: one version behind, one entry short.
  const racing: VersionedCache<CashFlowSummary, string> = {
    ...caches.summaries,
    held: () => undefined,
    async load(_key, load) {
      const loaded = await load();
      return { ...loaded, version: loaded.version - 1, total: loaded.total - 1 };
    },
  };
  const snapshots = async () =>
    (await register.getSingleMetric('cash_flow_page_reads_total')?.get())?.values.find(
      (v) => v.labels.source === 'snapshot',
    )?.value ?? 0;
  const service = createCashFlowService(db, { ...caches, summaries: racing });
  for (const offset of [0, 100, 237]) {
    await sql`insert into cash_flows (restaurant_id, entry_type, value, due_date, is_earning)
      values (1, 'standalone', 1.25, '2026-01-01', true)`.execute(db);
    const before = await snapshots();
    const listed = JSON.parse(
      String(await service.list(restaurantOf(db, 1), { ...Q1, offset }, JSON.stringify)),
    );
    assert.equal(await snapshots(), before + 1, 'the page was not read again with its summary');
    assert.deepEqual(listed, JSON.parse(JSON.stringify(await referenceListing(db, 1, { ...Q1, offset }))));
  }
});
