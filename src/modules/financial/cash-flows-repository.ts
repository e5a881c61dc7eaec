// SQL of the cash-flow listing: a constant three queries per request whatever the period holds
// (count + totals in one aggregate, the page's ids by (date, id) with OFFSET, the rows of the page
// and their children). Every query is scoped by the restaurant; the main-entry predicates repeat
// the partial indexes' `parent_id is null and deleted_at is null` so the planner can use them.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CashFlowFilter } from './cash-flows-query.ts';

export const PAGE_SIZE = 100;

export type CashFlowTotalsRow = {
  total: number;
  total_earnings: string;
  total_earnings_paid: string;
  total_expenses: string;
  total_expenses_paid: string;
};

export type CashFlowRow = {
  id: number;
  parent_id: number | null;
  entry_type: 'standalone' | 'invoice' | 'invoice_item' | 'title' | 'title_entry';
  description: string | null;
  value: string;
  due_date: string;
  competence_date: string | null;
  paid: boolean;
  paid_at: Date | null;
  is_earning: boolean;
  counts_for_result: boolean;
  provider_id: number | null;
  provider_name: string | null;
  bank_account_id: number | null;
  bank_account_name: string | null;
  payment_method_id: number | null;
  payment_method_name: string | null;
  category_subcategory_id: number | null;
  category_subcategory_name: string | null;
};

const dateColumn = (f: CashFlowFilter) =>
  f.dateType === 'due_date' ? ('c.due_date' as const) : ('c.effective_competence_date' as const);

function mainEntries(db: Db, restaurantId: number, f: CashFlowFilter) {
  let query = db
    .selectFrom('cash_flows as c')
    .where('c.restaurant_id', '=', restaurantId)
    .where('c.parent_id', 'is', null)
    .where('c.deleted_at', 'is', null)
    .where(dateColumn(f), '>=', f.startDate)
    .where(dateColumn(f), '<=', f.endDate);
  if (f.paid !== undefined) query = query.where('c.paid', '=', f.paid);
  if (f.isEarning !== undefined) query = query.where('c.is_earning', '=', f.isEarning);
  if (f.providerId !== undefined) query = query.where('c.provider_id', '=', f.providerId);
  if (f.bankAccountId !== undefined) query = query.where('c.bank_account_id', '=', f.bankAccountId);
  if (f.paymentMethodId !== undefined) query = query.where('c.payment_method_id', '=', f.paymentMethodId);
  const centre = f.categorySubcategoryId;
  if (centre !== undefined) {
    // A main entry matches by its own cost centre or by any of its non-deleted items'.
    query = query.where((eb) =>
      eb.or([
        eb('c.category_subcategory_id', '=', centre),
        eb('c.id', 'in', (sub) =>
          sub
            .selectFrom('cash_flows as i')
            .select('i.parent_id')
            .where('i.restaurant_id', '=', restaurantId)
            .where('i.category_subcategory_id', '=', centre)
            .where('i.parent_id', 'is not', null)
            .where('i.deleted_at', 'is', null),
        ),
      ]),
    );
  }
  return query;
}

const sumOf = (condition: string) =>
  sql<string>`round(coalesce(sum(g.value) filter (where ${sql.raw(condition)}), 0), 2)::text`;

/** One scan of the covering index: four (is_earning, paid) groups, then the four totals. */
export function cashFlowTotals(db: Db, restaurantId: number, f: CashFlowFilter): Promise<CashFlowTotalsRow> {
  const groups = mainEntries(db, restaurantId, f)
    .select(['c.is_earning', 'c.paid', sql<number>`count(*)`.as('n'), sql<string>`sum(c.value)`.as('value')])
    .groupBy(['c.is_earning', 'c.paid'])
    .as('g');
  return db
    .selectFrom(groups)
    .select([
      sql<number>`coalesce(sum(g.n), 0)::int`.as('total'),
      sumOf('g.is_earning').as('total_earnings'),
      sumOf('g.is_earning and g.paid').as('total_earnings_paid'),
      sumOf('not g.is_earning').as('total_expenses'),
      sumOf('not g.is_earning and g.paid').as('total_expenses_paid'),
    ])
    .executeTakeFirstOrThrow();
}

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

/** The page's main entries, in (date, id) order; the ids come from an index-only scan. */
export function cashFlowPage(db: Db, restaurantId: number, f: CashFlowFilter): Promise<CashFlowRow[]> {
  const pageIds = mainEntries(db, restaurantId, f)
    .select('c.id')
    .orderBy(dateColumn(f))
    .orderBy('c.id')
    .limit(PAGE_SIZE)
    .offset(f.offset);
  return withNames(db)
    .where('c.restaurant_id', '=', restaurantId)
    .where('c.id', 'in', () => pageIds)
    .orderBy(dateColumn(f))
    .orderBy('c.id')
    .execute() as Promise<CashFlowRow[]>;
}

export function cashFlowItems(db: Db, restaurantId: number, parentIds: number[]): Promise<CashFlowRow[]> {
  if (parentIds.length === 0) return Promise.resolve([]);
  return withNames(db)
    .where('c.restaurant_id', '=', restaurantId)
    .where('c.parent_id', 'in', parentIds)
    .where('c.deleted_at', 'is', null)
    .orderBy('c.parent_id')
    .orderBy('c.id')
    .execute() as Promise<CashFlowRow[]>;
}
