// The listing computed the plain way, kept as the reference the cached listing (the summary cache,
// the keyset pages) must equal byte for byte: every cash flow of the restaurant read at once, then
// filtered, counted, summed, sorted and paged in JavaScript, with the names looked up in maps. It is
// mounted on a test-only route with the real route's schemas, so both go through the same serialiser.

import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { mapCashFlow } from '../../../src/modules/financial/cash-flows-map.ts';
import { parseCashFlowQuery } from '../../../src/modules/financial/cash-flows-query.ts';
import type { CashFlowRow } from '../../../src/modules/financial/cash-flows-repository.ts';
import {
  CashFlowsQuery,
  type CashFlowsQuerystring,
  CashFlowsResponse,
} from '../../../src/modules/financial/cash-flows-schema.ts';

export const REFERENCE_URL = '/test/reference-cash-flows';

const PAGE = 100;

/** numeric(12,2) text <-> whole cents. */
const toCents = (value: string) => Math.round(Number(value) * 100);
function money(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** id -> name of one of the restaurant's tables. */
async function namesOf(
  db: Db,
  table: 'suppliers' | 'bank_accounts' | 'payment_methods' | 'cost_centres',
  restaurantId: number,
) {
  const rows = await db
    .selectFrom(table)
    .select(['id', 'name'])
    .where('restaurant_id', '=', restaurantId)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function referenceListing(db: Db, restaurantId: number, query: CashFlowsQuerystring) {
  const f = parseCashFlowQuery(query);
  const [suppliers, banks, methods, centres] = await Promise.all([
    namesOf(db, 'suppliers', restaurantId),
    namesOf(db, 'bank_accounts', restaurantId),
    namesOf(db, 'payment_methods', restaurantId),
    namesOf(db, 'cost_centres', restaurantId),
  ]);
  const live = (
    await db
      .selectFrom('cash_flows')
      .select([
        'id',
        'parent_id',
        'entry_type',
        'description',
        sql<string>`value::text`.as('value'),
        'due_date',
        'competence_date',
        'paid',
        'paid_at',
        'is_earning',
        'counts_for_result',
        'provider_id',
        'bank_account_id',
        'payment_method_id',
        'category_subcategory_id',
      ])
      .where('restaurant_id', '=', restaurantId)
      .where('deleted_at', 'is', null)
      .execute()
  ).map(
    (row): CashFlowRow => ({
      ...row,
      provider_name: row.provider_id === null ? null : (suppliers.get(row.provider_id) ?? null),
      bank_account_name: row.bank_account_id === null ? null : (banks.get(row.bank_account_id) ?? null),
      payment_method_name:
        row.payment_method_id === null ? null : (methods.get(row.payment_method_id) ?? null),
      category_subcategory_name:
        row.category_subcategory_id === null ? null : (centres.get(row.category_subcategory_id) ?? null),
    }),
  );
  const itemsOf = Map.groupBy(
    live.filter((row) => row.parent_id !== null),
    (row) => row.parent_id,
  );
  const dateOf = (row: CashFlowRow) =>
    f.dateType === 'due_date' ? row.due_date : (row.competence_date ?? row.due_date);
  const mains = live
    .filter(
      (row) =>
        row.parent_id === null &&
        dateOf(row) >= f.startDate &&
        dateOf(row) <= f.endDate &&
        (f.paid === undefined || row.paid === f.paid) &&
        (f.isEarning === undefined || row.is_earning === f.isEarning) &&
        (f.providerId === undefined || row.provider_id === f.providerId) &&
        (f.bankAccountId === undefined || row.bank_account_id === f.bankAccountId) &&
        (f.paymentMethodId === undefined || row.payment_method_id === f.paymentMethodId) &&
        (f.categorySubcategoryId === undefined ||
          row.category_subcategory_id === f.categorySubcategoryId ||
          (itemsOf.get(row.id) ?? []).some(
            (item) => item.category_subcategory_id === f.categorySubcategoryId,
          )),
    )
    .sort((a, b) => (dateOf(a) < dateOf(b) ? -1 : dateOf(a) > dateOf(b) ? 1 : a.id - b.id));
  const sum = (keep: (row: CashFlowRow) => boolean) =>
    money(mains.filter(keep).reduce((total, row) => total + toCents(row.value), 0));
  const page = mains.slice(f.offset, f.offset + PAGE);
  return {
    total: mains.length,
    count: page.length,
    remaining: Math.max(0, mains.length - f.offset - page.length),
    limit: PAGE,
    offset: f.offset,
    start_date: f.startDate,
    end_date: f.endDate,
    date_type: f.dateType,
    totals: {
      total_earnings: sum((row) => row.is_earning),
      total_earnings_paid: sum((row) => row.is_earning && row.paid),
      total_expenses: sum((row) => !row.is_earning),
      total_expenses_paid: sum((row) => !row.is_earning && row.paid),
    },
    cash_flows: page.map((row) =>
      mapCashFlow(
        row,
        row.entry_type === 'standalone' ? [] : (itemsOf.get(row.id) ?? []).sort((a, b) => a.id - b.id),
      ),
    ),
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
