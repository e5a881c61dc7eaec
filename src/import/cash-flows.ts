// Cash flows: standalone entries, invoices and titles; the items of an invoice (invoice_item) or
// a title (title_entry) inherit the parent's dates, payment, direction, supplier, bank account
// and payment method unless they give their own, and the parent's value is the sum of its items
// (also for a stored parent whose item the file takes elsewhere: verify).
import { sql } from 'kysely';
import { formatCents, toCents } from '../lib/money.ts';
import { inRestaurant } from './catalog.ts';
import type { Collection, Ref, Row } from './collection.ts';
import { arrayOf, bool, date, id, instant, oneOf, text } from './fields.ts';
import type { Issues } from './issues.ts';
import { money } from './money.ts';
import { nested, nullable, optional, required } from './record.ts';
import { lockRows, upsertRows } from './write.ts';

const INHERITED = [
  'due_date',
  'competence_date',
  'paid',
  'paid_at',
  'is_earning',
  'provider_id',
  'bank_account_id',
  'payment_method_id',
  'deleted_at',
] as const;
const CHILD_TYPE: Record<string, string> = { invoice: 'invoice_item', title: 'title_entry' };
const LINKS = [
  ['provider_id', 'suppliers'],
  ['bank_account_id', 'bank_accounts'],
  ['payment_method_id', 'payment_methods'],
  ['category_subcategory_id', 'cost_centres'],
] as const;

const common = {
  description: nullable(text()),
  value: required(money({ min: 0 })),
  category_subcategory_id: nullable(id),
};

const item = nested({
  id: required(id),
  entry_type: optional(oneOf(['invoice_item', 'title_entry']), undefined),
  ...common,
  due_date: optional(date, undefined),
  competence_date: nullable(date, undefined),
  paid: optional(bool, undefined),
  paid_at: nullable(instant, undefined),
  is_earning: optional(bool, undefined),
  provider_id: nullable(id, undefined),
  bank_account_id: nullable(id, undefined),
  payment_method_id: nullable(id, undefined),
  counts_for_result: optional(bool, true),
  deleted_at: nullable(instant, undefined),
});

function checkPayment(row: Row, at: string, issues: Issues): void {
  if (row.paid_at !== null && !row.paid) issues.add(`${at}.paid_at`, 'must be null when paid is false');
}

function linkRefs(row: Row, path: string): Ref[] {
  return LINKS.filter(([field]) => row[field] !== null).map(([field, table]) => ({
    path: `${path}.${field}`,
    table,
    id: row[field],
  }));
}

export const cashFlows: Collection = {
  name: 'cash_flows',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    entry_type: required(oneOf(['standalone', 'invoice', 'title'])),
    ...common,
    due_date: required(date),
    competence_date: nullable(date),
    paid: optional(bool, false),
    paid_at: nullable(instant),
    is_earning: required(bool),
    provider_id: nullable(id),
    bank_account_id: nullable(id),
    payment_method_id: nullable(id),
    // Parents of items default to false: their items carry the cost-centre result.
    counts_for_result: optional(bool, undefined),
    deleted_at: nullable(instant),
    items: optional(arrayOf(item), null),
  },
  ids: (row) => [
    { path: '.id', table: 'cash_flows', id: row.id },
    ...(row.items ?? []).map((child: Row, i: number) => ({
      path: `.items[${i}].id`,
      table: 'cash_flows',
      id: child.id,
    })),
  ],
  refs: (row) => [
    ...inRestaurant(row),
    ...linkRefs(row, ''),
    ...(row.items ?? []).flatMap((child: Row, i: number) => linkRefs(child, `.items[${i}]`)),
  ],
  check: (row, at, issues) => {
    row.counts_for_result ??= row.entry_type === 'standalone';
    checkPayment(row, at, issues);
    if (row.items === null) return;
    const childType = CHILD_TYPE[row.entry_type];
    if (!childType) {
      issues.add(`${at}.items`, `only an invoice or a title has items (entry_type is "${row.entry_type}")`);
      return;
    }
    let cents = 0;
    row.items.forEach((child: Row, i: number) => {
      if ((child.entry_type ?? childType) !== childType) {
        issues.add(
          `${at}.items[${i}].entry_type`,
          `must be ${childType} under ${row.entry_type === 'invoice' ? 'an invoice' : 'a title'}`,
        );
      }
      child.entry_type = childType;
      for (const field of INHERITED) child[field] ??= row[field];
      checkPayment(child, `${at}.items[${i}]`, issues);
      cents += toCents(child.value);
    });
    if (cents !== toCents(row.value)) {
      issues.add(
        `${at}.value`,
        `must equal the sum of its items (${row.value} given, items sum ${formatCents(cents)})`,
      );
    }
  },
  // An upsert sets an entry's parent_id: a stored item given as a main entry, or under another
  // parent, would leave its stored parent's value above the sum of the items it keeps, unless the
  // file lists that parent too (its items are then replaced, and checked above).
  verify: async (tx, records, issues) => {
    const mains = new Set(records.map(({ row }) => row.id));
    const placed = records.flatMap(({ at, row }) => [
      { at: `${at}.id`, id: row.id },
      ...(row.items ?? []).map((child: Row, i: number) => ({ at: `${at}.items[${i}].id`, id: child.id })),
    ]);
    const { rows } = await sql<{ id: number; parent_id: number }>`select id, parent_id from cash_flows
      where id = any(${placed.map((p) => p.id)}::integer[]) and parent_id is not null`.execute(tx);
    const parentOf = new Map(rows.map((r) => [r.id, r.parent_id]));
    for (const { at, id } of placed) {
      const parent = parentOf.get(id);
      if (parent !== undefined && !mains.has(parent)) {
        issues.add(
          at,
          `cash flow ${id} is an item of cash flow ${parent} in the database; list ${parent} in the file too, with its items as they will be`,
        );
      }
    }
  },
  size: (row) => 1 + (row.items?.length ?? 0),
  write: async (ctx, records) => {
    const parents = records.map(({ row: { items, ...parent } }) => ({ ...parent, parent_id: null }));
    const children = records.flatMap(({ row }) =>
      (row.items ?? []).map((child: Row) => ({
        ...child,
        restaurant_id: row.restaurant_id,
        parent_id: row.id,
      })),
    );
    // The entries it may write or delete (the file's, and its entries' stored items), locked in id
    // order first: two imports lock the entries they both change in one order (write.ts).
    const listed = [...parents, ...children].map((r) => r.id);
    await lockRows(ctx, 'cash_flows', 'parent_id', listed, listed);
    // An entry equal to the stored one is not written again: cash_flows.updated names the main
    // entries whose row or items the file changes (src/import/events.ts).
    const changed = new Set((await upsertRows(ctx, 'cash_flows', parents, 'id', true)) as number[]);
    // Replacing an entry replaces its items: children the file no longer lists go.
    const removed = await sql<{ parent_id: number }>`delete from cash_flows
      where parent_id = any(${listed}) and not (id = any(${children.map((c) => c.id)})) returning parent_id`.execute(
      ctx.tx,
    );
    for (const row of removed.rows) changed.add(row.parent_id);
    // An item moved to another main entry changes both: the one it leaves is named too.
    const { rows: stored } = await sql<{ id: number; parent_id: number | null }>`select id, parent_id
      from cash_flows where id = any(${children.map((c) => c.id)}::integer[])`.execute(ctx.tx);
    const storedParent = new Map(stored.map((r) => [r.id, r.parent_id]));
    const parentOf = new Map(children.map((child) => [child.id, child.parent_id]));
    for (const id of await upsertRows(ctx, 'cash_flows', children, 'id', true)) {
      changed.add(parentOf.get(id));
      const left = storedParent.get(id as number);
      if (left != null) changed.add(left);
    }
    ctx.changed?.set('cash_flows', changed);
    return { cash_flows: parents.length, cash_flow_items: children.length };
  },
};
