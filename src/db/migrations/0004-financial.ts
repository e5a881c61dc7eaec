// Indexes of GET /v1/financial/cash-flows. The two main-entry indexes of 0001 are replaced by
// covering ones: count + totals and the OFFSET skip of a deep page then read only the index
// (index-only scans), whatever filter is combined with the period, instead of visiting ~80,000
// heap rows of a 92-day window. The cost-centre filter also matches a main entry through its
// items: the items index answers "which parents have an item in this cost centre".
import { type Kysely, sql } from 'kysely';

const COVERED =
  'value, is_earning, paid, provider_id, bank_account_id, payment_method_id, category_subcategory_id';

const statements = [
  sql`drop index if exists cash_flows_due`,
  sql`drop index if exists cash_flows_competence`,
  sql`create index cash_flows_due on cash_flows (restaurant_id, due_date, id)
    include (${sql.raw(COVERED)}) where parent_id is null and deleted_at is null`,
  sql`create index cash_flows_competence on cash_flows (restaurant_id, effective_competence_date, id)
    include (${sql.raw(COVERED)}) where parent_id is null and deleted_at is null`,
  sql`create index cash_flows_item_centre on cash_flows (restaurant_id, category_subcategory_id, parent_id)
    where parent_id is not null and deleted_at is null`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
