// SQL of one page of the cash-flow listing, in one statement: the restaurant's cash_flow_version
// (so the caller can check the summary it seeks from, cash-flows-summary.ts), the page's main
// entries found by a keyset seek from the page's first (date, id), and their items; and the
// version alone, to check a page kept in memory. Every query is
// scoped by the restaurant; the main-entry predicates repeat the partial indexes'
// `parent_id is null and deleted_at is null` so the planner can use them.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CashFlowFilter } from './cash-flows-query.ts';

export const PAGE_SIZE = 100;

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

/** Where a page starts: `skip` main entries after a page's first one (`from`) or the period's start. */
export type PageStart = { from?: { date: string; id: number }; skip: number };

/** A main entry with the date it is listed by (the due or the effective competence date). */
export type MainRow = CashFlowRow & { sort_date: string };
export type CashFlowPage = { version: number; mains: MainRow[]; items: CashFlowRow[] };

export const dateColumn = (f: CashFlowFilter) =>
  f.dateType === 'due_date' ? ('c.due_date' as const) : ('c.effective_competence_date' as const);

export function mainEntries(db: Db, restaurantId: number, f: CashFlowFilter) {
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

function withNames(db: Db, restaurantId: number) {
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
    ])
    .where('c.restaurant_id', '=', restaurantId);
}

type PageRow = { version: number; sort_date: string | null } & CashFlowRow;

/**
 * The page that `start` points at (null: past the end, no rows), read with the version in one
 * snapshot. Items come only under invoices and titles, live ones, by id; main entries by (date, id)
 * (the ids from an index-only scan).
 */
export async function readPage(
  db: Db,
  restaurantId: number,
  f: CashFlowFilter,
  start: PageStart | null,
): Promise<CashFlowPage> {
  const date = dateColumn(f);
  const from = start?.from;
  const ids = mainEntries(db, restaurantId, f)
    .select('c.id')
    .$if(from !== undefined, (q) =>
      q.where((eb) => eb(eb.refTuple(date, 'c.id'), '>=', eb.tuple(from!.date, from!.id))),
    )
    .orderBy(date)
    .orderBy('c.id')
    .limit(start ? PAGE_SIZE : 0)
    .offset(start?.skip ?? 0);
  const mainRows = withNames(db, restaurantId)
    .select(sql<string>`${sql.ref(date)}`.as('sort_date'))
    .where('c.id', 'in', sql<number>`(select id from page)`);
  const itemRows = withNames(db, restaurantId)
    .select(sql<null>`null::date`.as('sort_date'))
    .where('c.parent_id', 'in', sql<number>`(select id from page)`)
    .where('c.deleted_at', 'is', null);
  const { rows } = await sql<PageRow>`with page as ${ids}
    select v.version, x.* from (select cash_flow_version as version from restaurants where id = ${restaurantId}) v
    left join (${mainRows} union all ${itemRows}) x on true
    order by x.parent_id nulls first, x.sort_date, x.id`.execute(db);
  const version = rows[0]?.version ?? -1;
  const entries = rows[0]?.id == null ? [] : rows;
  const split = entries.findIndex((row) => row.parent_id !== null);
  const mains = (split < 0 ? entries : entries.slice(0, split)) as MainRow[];
  // entry_type is not in the covering index: the items of anything but an invoice or a title
  // (which only SQL written by hand could make) are dropped here.
  const parents = new Set(mains.filter((row) => row.entry_type !== 'standalone').map((row) => row.id));
  return {
    version,
    mains,
    items: split < 0 ? [] : entries.slice(split).filter((row) => parents.has(row.parent_id!)),
  };
}
