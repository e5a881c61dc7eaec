// The cash-flow listing use case: validate the period, read totals and the page, attach items.
import type { Static } from 'typebox';
import type { Db } from '../../db/database.ts';
import { mapCashFlow } from './cash-flows-map.ts';
import { parseCashFlowQuery } from './cash-flows-query.ts';
import {
  type CashFlowRow,
  cashFlowItems,
  cashFlowPage,
  cashFlowTotals,
  PAGE_SIZE,
} from './cash-flows-repository.ts';
import type { CashFlowsQuerystring, CashFlowsResponse } from './cash-flows-schema.ts';

export async function listCashFlows(
  db: Db,
  restaurantId: number,
  query: CashFlowsQuerystring,
): Promise<Static<typeof CashFlowsResponse>> {
  const filter = parseCashFlowQuery(query);
  const [totals, page] = await Promise.all([
    cashFlowTotals(db, restaurantId, filter),
    cashFlowPage(db, restaurantId, filter),
  ]);
  const parents = page.filter((row) => row.entry_type !== 'standalone').map((row) => row.id);
  const children = Map.groupBy(await cashFlowItems(db, restaurantId, parents), (row) => row.parent_id);
  const { total, ...sums } = totals;
  return {
    total,
    count: page.length,
    remaining: Math.max(0, total - filter.offset - page.length),
    limit: PAGE_SIZE,
    offset: filter.offset,
    start_date: filter.startDate,
    end_date: filter.endDate,
    date_type: filter.dateType,
    totals: sums,
    cash_flows: page.map((row) => mapCashFlow(row, children.get(row.id) ?? ([] as CashFlowRow[]))),
  };
}
