// Ids across the file and the database: no id twice in the file, no record moved to another
// restaurant by an upsert, and every reference pointing at a record of the same restaurant that
// exists in the file or in the database.
import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/types.ts';
import { type Collection, type IdTable, LABELS, type Rec, type Row, type ScopedTable } from './collection.ts';
import type { Issues } from './issues.ts';

/**
 * `rejected`: records with field problems, never written nor checked further, whose ids still count
 * as in the file, so one pass reports every problem without naming references to them missing.
 */
export type Parsed = { collection: Collection; records: Rec[]; rejected?: Rec[] }[];

type Owner = { restaurantId: number; idAt: string; movedAt: string; rejected: boolean };

/** The ids a record declares; a rejected record's only when they are of the right kind. */
function declaredIds(collection: Collection, row: Row) {
  try {
    return collection
      .ids(row)
      .filter((own) =>
        own.table === 'oauth_clients'
          ? typeof own.id === 'string'
          : Number.isInteger(own.id) && (own.id as number) >= 1 && (own.id as number) <= 2147483647,
      );
  } catch {
    return [];
  }
}

const UNSCOPED: IdTable[] = ['api_keys', 'oauth_clients'];

function fileOwners(parsed: Parsed, issues: Issues): Map<IdTable, Map<number | string, Owner>> {
  const owners = new Map<IdTable, Map<number | string, Owner>>();
  for (const { collection, records, rejected = [] } of parsed) {
    const all = [
      ...records.map((r) => ({ ...r, rejected: false })),
      ...rejected.map((r) => ({ ...r, rejected: true })),
    ];
    for (const { at, row, rejected: invalid } of all) {
      for (const own of declaredIds(collection, row)) {
        const table = owners.get(own.table) ?? new Map<number | string, Owner>();
        owners.set(own.table, table);
        const seen = table.get(own.id);
        if (seen) issues.add(`${at}${own.path}`, `${LABELS[own.table]} ${own.id} is also at ${seen.idAt}`);
        else {
          const restaurantId = own.table === 'restaurants' ? row.id : row.restaurant_id;
          const movedAt = `${at}${own.path === '.id' ? '.restaurant_id' : own.path}`;
          table.set(own.id, { restaurantId, idAt: `${at}${own.path}`, movedAt, rejected: invalid });
        }
      }
    }
  }
  return owners;
}

async function storedOwners(tx: Transaction<Database>, table: ScopedTable | 'restaurants', ids: Set<number>) {
  const owners = new Map<number, number>();
  if (!ids.size) return owners;
  const column = table === 'restaurants' ? sql.ref('id') : sql.ref('restaurant_id');
  const { rows } = await sql<{ id: number; restaurant_id: number }>`select id, ${column} as restaurant_id
    from ${sql.table(table)} where id = any(${[...ids]})`.execute(tx);
  for (const row of rows) owners.set(row.id, row.restaurant_id);
  return owners;
}

export async function checkReferences(tx: Transaction<Database>, parsed: Parsed, issues: Issues) {
  const inFile = fileOwners(parsed, issues);
  const wanted = new Map<ScopedTable | 'restaurants', Set<number>>();
  const want = (table: ScopedTable | 'restaurants', id: number) => {
    const ids = wanted.get(table) ?? new Set<number>();
    wanted.set(table, ids.add(id));
  };
  for (const [table, owners] of inFile) {
    if (table === 'restaurants' || UNSCOPED.includes(table)) continue;
    for (const id of owners.keys()) want(table as ScopedTable, id as number);
  }
  for (const { collection, records } of parsed) {
    for (const { row } of records) {
      for (const ref of collection.refs?.(row) ?? [])
        if (!inFile.get(ref.table)?.has(ref.id)) want(ref.table, ref.id);
    }
  }
  const stored = new Map<IdTable, Map<number, number>>();
  for (const [table, ids] of wanted) stored.set(table, await storedOwners(tx, table, ids));

  for (const [table, owners] of inFile) {
    for (const [id, owner] of owners) {
      const current = stored.get(table)?.get(id as number);
      if (!owner.rejected && current !== undefined && current !== owner.restaurantId) {
        issues.add(
          owner.movedAt,
          `${LABELS[table]} ${id} belongs to restaurant ${current}; an import cannot move it`,
        );
      }
    }
  }
  for (const { collection, records } of parsed) {
    for (const { at, row } of records) {
      for (const ref of collection.refs?.(row) ?? []) {
        const owner = inFile.get(ref.table)?.get(ref.id)?.restaurantId ?? stored.get(ref.table)?.get(ref.id);
        if (ref.table === 'restaurants') {
          if (owner === undefined) issues.add(`${at}${ref.path}`, `restaurant ${ref.id} does not exist`);
        } else if (owner !== row.restaurant_id) {
          issues.add(
            `${at}${ref.path}`,
            `${LABELS[ref.table]} ${ref.id} does not exist for restaurant ${row.restaurant_id}`,
          );
        }
      }
    }
  }
}
