// The events of an import, recorded in its transaction (src/modules/events/outbox.ts): one
// nfe_received.created per note the database did not hold, one cash_flows.updated per restaurant
// whose main entries (or their items) the file adds or changes, and one menu.updated per restaurant
// whose menu answer it changes. Which notes are new is read before
// the write; which cash flows and menus changed, by the write (WriteContext.changed and menus):
// a record imported again as it is stored counts for none.
//
// A menu changes with a restaurant's time zone or scheduling; a category, add-on group or option
// added, removed or changed; a product added, or changed in a field the menus show (every one but
// fiscal_group_id: fiscal attributes too, with include_fiscal_info), or in its add-on links or combo items as
// ordered lists. A restaurant's name, a category's brand and fiscal_group_id are in no menu.
import { sql } from 'kysely';
import type { EventType } from '../modules/events/event-types.ts';
import { menuUpdated } from '../modules/events/menu-updated.ts';
import type { NewEvent } from '../modules/events/outbox.ts';
import type { Rec, Row, WriteContext } from './collection.ts';
import type { Parsed } from './references.ts';

/** Records that the write changed `restaurant`'s menu answer (both channels: product-events.ts). */
export function menuChanged(ctx: WriteContext, restaurant: number): void {
  ctx.menus?.add(restaurant);
}

const rowsOf = (parsed: Parsed, name: string): Row[] =>
  parsed.find((p) => p.collection.name === name)?.records.map((r: Rec) => r.row) ?? [];

/** Restaurant id -> the ids of its rows among `rows` (a restaurant row is its own restaurant). */
function byRestaurant(rows: Row[], restaurantOf: (row: Row) => number): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (const row of rows) {
    const id = restaurantOf(row);
    groups.set(id, [...(groups.get(id) ?? []), row.id]);
  }
  return groups;
}

/** The ids of the file's notes already stored: they are not "created" by this import. */
export async function storedNotes(tx: WriteContext['tx'], parsed: Parsed): Promise<Set<number>> {
  const ids = rowsOf(parsed, 'nfe_received').map((row) => row.id);
  if (!ids.length) return new Set();
  const { rows } = await sql<{ id: number }>`
    select id from nfe_received where id = any(${ids}::integer[])`.execute(tx);
  return new Set(rows.map((r) => r.id));
}

export function importEvents(
  parsed: Parsed,
  stored: Set<number>,
  { changed, menus }: Required<Pick<WriteContext, 'changed' | 'menus'>>,
): NewEvent[] {
  const events: NewEvent[] = [];
  const add = (restaurant_id: number, type: EventType, data: Record<string, unknown>) =>
    events.push({ restaurant_id, type, data });
  for (const note of rowsOf(parsed, 'nfe_received')) {
    if (stored.has(note.id)) continue;
    add(note.restaurant_id, 'nfe_received.created', {
      nfe_received_id: note.id,
      brand_id: note.brand_id,
      access_key: note.access_key,
      issuer_name: note.issuer_name,
      issuer_document: note.issuer_document,
      total: note.total,
      issued_at: note.issued_at,
      source: 'import',
    });
  }
  const changedCashFlows = changed.get('cash_flows') ?? new Set();
  const cashFlows = rowsOf(parsed, 'cash_flows').filter((row) => changedCashFlows.has(row.id));
  for (const [restaurant, ids] of byRestaurant(cashFlows, (r) => r.restaurant_id)) {
    add(restaurant, 'cash_flows.updated', { cash_flow_ids: ids, source: 'import' });
  }
  for (const restaurant of menus) events.push(menuUpdated(restaurant, 'import'));
  return events;
}
