// Rows -> the entry shape of README.md (Financial entries). Names are resolved by the repository;
// the id/name pairs become objects so a client needs no second call to label an entry.
import type { Static } from 'typebox';
import type { CashFlowRow } from './cash-flows-repository.ts';
import type { CashFlowsResponse } from './cash-flows-schema.ts';

type CashFlowEntry = Static<typeof CashFlowsResponse>['cash_flows'][number];
type CashFlowItem = CashFlowEntry['items'][number];

const named = (id: number | null, name: string | null) => (id === null ? null : { id, name: name ?? '' });

function mapFields(row: CashFlowRow): CashFlowItem {
  return {
    id: row.id,
    entry_type: row.entry_type,
    description: row.description,
    value: row.value,
    due_date: row.due_date,
    competence_date: row.competence_date,
    paid: row.paid,
    paid_at: row.paid_at ? row.paid_at.toISOString() : null,
    is_earning: row.is_earning,
    provider: named(row.provider_id, row.provider_name),
    bank_account: named(row.bank_account_id, row.bank_account_name),
    payment_method: named(row.payment_method_id, row.payment_method_name),
    category_subcategory: named(row.category_subcategory_id, row.category_subcategory_name),
    counts_for_result: row.counts_for_result,
  };
}

/** A main entry with its items; children are never returned without their parent. */
export function mapCashFlow(row: CashFlowRow, children: CashFlowRow[]): CashFlowEntry {
  return { ...mapFields(row), items: children.map(mapFields) };
}
