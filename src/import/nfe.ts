// Received NF-e as stored locally (the list's snapshot); the detail comes from the fiscal provider.
import { inRestaurant } from './catalog.ts';
import type { Collection } from './collection.ts';
import { bool, type Check, id, instant, integer, json, text } from './fields.ts';
import { FieldProblem } from './issues.ts';
import { money } from './money.ts';
import { nullable, optional, required } from './record.ts';
import { upsertRows } from './write.ts';

const accessKey: Check<string> = (value) => {
  if (typeof value !== 'string' || !/^\d{44}$/.test(value))
    throw new FieldProblem('must be a string of 44 digits');
  return value;
};
const label = required(text({ nonEmpty: true }));
const note = nullable(text());

export const nfeReceived: Collection = {
  name: 'nfe_received',
  spec: {
    id: required(id),
    restaurant_id: required(id),
    brand_id: nullable(id),
    access_key: required(accessKey),
    series: note,
    state: note,
    type: note,
    issuer_name: label,
    issuer_document: label,
    total: required(money({ min: 0, precision: 15 })),
    situation: label,
    complete: optional(bool, false),
    manifestation_type: nullable(text({ nonEmpty: true })),
    manifested_at: nullable(instant),
    correction_number: nullable(integer()),
    correction_text: note,
    correction_issued_at: nullable(instant),
    canceled_at: nullable(instant),
    cancellation_reason: note,
    locally_canceled_at: nullable(instant),
    return_reference: note,
    reference: note,
    url: note,
    provider_id: nullable(id),
    version: optional(integer(1), 1),
    digest: note,
    sped: nullable(json),
    is_stock_transfer: optional(bool, false),
    issued_at: required(instant),
    processing_at: nullable(instant),
    created_at: optional(instant, null),
    updated_at: optional(instant, null),
  },
  ids: (row) => [{ path: '.id', table: 'nfe_received', id: row.id }],
  refs: (row) => [
    ...inRestaurant(row),
    ...(row.brand_id === null ? [] : [{ path: '.brand_id', table: 'brands' as const, id: row.brand_id }]),
    ...(row.provider_id === null
      ? []
      : [{ path: '.provider_id', table: 'suppliers' as const, id: row.provider_id }]),
  ],
  size: () => 1,
  write: async (ctx, records) => {
    const now = new Date().toISOString();
    const rows = records.map(({ row }) => ({
      ...row,
      created_at: row.created_at ?? now,
      updated_at: row.updated_at ?? now,
    }));
    await upsertRows(ctx, 'nfe_received', rows);
    return { nfe_received: rows.length };
  },
};
