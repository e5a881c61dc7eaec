// Brute-force expectations over the world's rows, written independently of the SQL.
import type { FastifyInstance } from 'fastify';
import type { WorldEntry } from '../../support/financial-world.ts';

export type Params = Record<string, string>;

export const money = (cents: number) => (cents / 100).toFixed(2);

const ID_PARAMS = ['provider_id', 'bank_account_id', 'payment_method_id'] as const;

function matches(entry: WorldEntry, all: WorldEntry[], p: Params): boolean {
  if (entry.parent_id !== null || entry.deleted) return false;
  const date = p.date_type === 'competence_date' ? (entry.competence_date ?? entry.due_date) : entry.due_date;
  if (date < p.start_date || date > p.end_date) return false;
  if (p.paid !== undefined && String(entry.paid) !== p.paid) return false;
  if (p.is_earning !== undefined && String(entry.is_earning) !== p.is_earning) return false;
  for (const name of ID_PARAMS) if (p[name] !== undefined && String(entry[name]) !== p[name]) return false;
  const centre = p.category_subcategory_id;
  if (centre === undefined || String(entry.category_subcategory_id) === centre) return true;
  return itemsOf(all, entry.id).some((item) => String(item.category_subcategory_id) === centre);
}

export function itemsOf(all: WorldEntry[], parentId: number): WorldEntry[] {
  return all.filter((e) => e.parent_id === parentId && !e.deleted).sort((x, y) => x.id - y.id);
}

/** Main entries the listing must return, in its order (the chosen date, then id). */
export function expectedMains(all: WorldEntry[], p: Params): WorldEntry[] {
  const dateOf = (e: WorldEntry) =>
    p.date_type === 'competence_date' ? (e.competence_date ?? e.due_date) : e.due_date;
  return all
    .filter((e) => matches(e, all, p))
    .sort((x, y) => (dateOf(x) < dateOf(y) ? -1 : dateOf(x) > dateOf(y) ? 1 : x.id - y.id));
}

export function expectedTotals(mains: WorldEntry[]) {
  const sum = (keep: (e: WorldEntry) => boolean) =>
    money(mains.filter(keep).reduce((s, e) => s + e.cents, 0));
  return {
    total_earnings: sum((e) => e.is_earning),
    total_earnings_paid: sum((e) => e.is_earning && e.paid),
    total_expenses: sum((e) => !e.is_earning),
    total_expenses_paid: sum((e) => !e.is_earning && e.paid),
  };
}

export async function getCashFlows(app: FastifyInstance, authorization: string, params: Params) {
  const url = `/v1/financial/cash-flows?${new URLSearchParams(params)}`;
  return app.inject({ method: 'GET', url, headers: { authorization } });
}

/** Walks the pages as the contract says: add 100 to offset while remaining > 0. */
export async function fetchAll(app: FastifyInstance, authorization: string, params: Params) {
  const pages = [];
  let offset = 0;
  for (;;) {
    const res = await getCashFlows(app, authorization, { ...params, offset: String(offset) });
    if (res.statusCode !== 200) throw new Error(`page at ${offset}: ${res.statusCode} ${res.body}`);
    pages.push(res.json());
    if (res.json().remaining === 0) break;
    offset += 100;
  }
  return { pages, entries: pages.flatMap((page) => page.cash_flows) };
}
