// The listing as it was before the summary cache (count + totals aggregate, OFFSET page, then the
// items), kept as the reference the cached listing must equal byte for byte. It is mounted on a
// test-only route with the real route's schemas, so both go through the same serialiser.

import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { mapCashFlow } from '../../../src/modules/financial/cash-flows-map.ts';
import { parseCashFlowQuery } from '../../../src/modules/financial/cash-flows-query.ts';
import {
  type CashFlowRow,
  dateColumn,
  mainEntries,
} from '../../../src/modules/financial/cash-flows-repository.ts';
import {
  CashFlowsQuery,
  type CashFlowsQuerystring,
  CashFlowsResponse,
} from '../../../src/modules/financial/cash-flows-schema.ts';

export const REFERENCE_URL = '/test/reference-cash-flows';

const sumOf = (condition: string) =>
  sql<string>`round(coalesce(sum(g.value) filter (where ${sql.raw(condition)}), 0), 2)::text`;

function withNames(db: Db) {
  return db
    .selectFrom('cash_flows as c')
    .leftJoin('suppliers as s', (j) =>
      j.onRef('s.restaurant_id', '=', 'c.restaurant_id').onRef('s.id', '=', 'c.provider_id'),
    )
    .leftJoin('bank_accounts as b', (j) =>
      j.onRef('b.restaurant_id', '=', 'c.restaurant_id').onRef('b.id', '=', 'c.bank_account_id'),
    )
    .leftJoin('payment_methods as m', (j) =>
      j.onRef('m.restaurant_id', '=', 'c.restaurant_id').onRef('m.id', '=', 'c.payment_method_id'),
    )
    .leftJoin('cost_centres as k', (j) =>
      j.onRef('k.restaurant_id', '=', 'c.restaurant_id').onRef('k.id', '=', 'c.category_subcategory_id'),
    )
    .select([
      'c.id',
      'c.parent_id',
      'c.entry_type',
      'c.description',
      sql<string>`c.value::text`.as('value'),
      'c.due_date',
      'c.competence_date',
      'c.paid',
      'c.paid_at',
      'c.is_earning',
      'c.counts_for_result',
      'c.provider_id',
      's.name as provider_name',
      'c.bank_account_id',
      'b.name as bank_account_name',
      'c.payment_method_id',
      'm.name as payment_method_name',
      'c.category_subcategory_id',
      'k.name as category_subcategory_name',
    ]);
}

export async function referenceListing(db: Db, restaurantId: number, query: CashFlowsQuerystring) {
  const f = parseCashFlowQuery(query);
  const groups = mainEntries(db, restaurantId, f)
    .select(['c.is_earning', 'c.paid', sql<number>`count(*)`.as('n'), sql<string>`sum(c.value)`.as('value')])
    .groupBy(['c.is_earning', 'c.paid'])
    .as('g');
  const { total, ...totals } = await db
    .selectFrom(groups)
    .select([
      sql<number>`coalesce(sum(g.n), 0)::int`.as('total'),
      sumOf('g.is_earning').as('total_earnings'),
      sumOf('g.is_earning and g.paid').as('total_earnings_paid'),
      sumOf('not g.is_earning').as('total_expenses'),
      sumOf('not g.is_earning and g.paid').as('total_expenses_paid'),
    ])
    .executeTakeFirstOrThrow();
  const pageIds = mainEntries(db, restaurantId, f)
    .select('c.id')
    .orderBy(dateColumn(f))
    .orderBy('c.id')
    .limit(100)
    .offset(f.offset);
  const page = (await withNames(db)
    .where('c.restaurant_id', '=', restaurantId)
    .where('c.id', 'in', () => pageIds)
    .orderBy(dateColumn(f))
    .orderBy('c.id')
    .execute()) as CashFlowRow[];
  const parents = page.filter((row) => row.entry_type !== 'standalone').map((row) => row.id);
  const items = parents.length
    ? ((await withNames(db)
        .where('c.restaurant_id', '=', restaurantId)
        .where('c.parent_id', 'in', parents)
        .where('c.deleted_at', 'is', null)
        .orderBy('c.parent_id')
        .orderBy('c.id')
        .execute()) as CashFlowRow[])
    : [];
  const children = Map.groupBy(items, (row) => row.parent_id);
  return {
    total,
    count: page.length,
    remaining: Math.max(0, total - f.offset - page.length),
    limit: 100,
    offset: f.offset,
    start_date: f.startDate,
    end_date: f.endDate,
    date_type: f.dateType,
    totals,
    cash_flows: page.map((row) => mapCashFlow(row, children.get(row.id) ?? [])),
  };
}

/** For buildTestApp's `routes`: the reference listing behind the same scope and schemas. */
export function referenceRoute(app: FastifyInstance): void {
  app.get<{ Querystring: CashFlowsQuerystring }>(
    REFERENCE_URL,
    {
      config: { scope: 'financial:read' },
      schema: { querystring: CashFlowsQuery, response: { 200: CashFlowsResponse } },
    },
    async (request) => referenceListing(app.ctx.db, request.restaurantId, request.query),
  );
}
