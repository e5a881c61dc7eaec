// Suppliers, bank accounts, payment methods and cost centres: named records of a restaurant. A
// record equal to the stored one is not written again, so it moves no cash_flow_version (0009).
import { inRestaurant, name } from './catalog.ts';
import type { Collection } from './collection.ts';
import { bool, id, instant, text } from './fields.ts';
import { nullable, optional, required } from './record.ts';
import { upsertRows } from './write.ts';

export const suppliers: Collection = {
  name: 'suppliers',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    name,
    document: nullable(text({ nonEmpty: true, max: 18 })),
    active: optional(bool, true),
    deleted_at: nullable(instant),
  },
  ids: (row) => [{ path: '.id', table: 'suppliers', id: row.id }],
  refs: inRestaurant,
  size: () => 1,
  write: async (ctx, records) => {
    await upsertRows(
      ctx,
      'suppliers',
      records.map((r) => r.row),
      'id',
      true,
    );
    return { suppliers: records.length };
  },
};

function named(table: 'bank_accounts' | 'payment_methods' | 'cost_centres'): Collection {
  return {
    name: table,
    spec: { id: required(id), restaurant_id: required(id), name },
    ids: (row) => [{ path: '.id', table, id: row.id }],
    refs: inRestaurant,
    size: () => 1,
    write: async (ctx, records) => {
      await upsertRows(
        ctx,
        table,
        records.map((r) => r.row),
        'id',
        true,
      );
      return { [table]: records.length };
    },
  };
}

export const bankAccounts = named('bank_accounts');
export const paymentMethods = named('payment_methods');
export const costCentres = named('cost_centres');
