// Received NF-e as stored locally (the list's snapshot); the detail comes from the fiscal provider.
// A note equal to the stored one is not written again (its nfe_version stays, 0010), and a stored
// note keeps its created_at, and its updated_at unless the file changes it, when the file gives none.
import { sql } from 'kysely';
import { isoText } from '../db/iso-instant.ts';
import { inRestaurant } from './catalog.ts';
import type { Collection } from './collection.ts';
import { bool, type Check, id, instant, integer, json, text } from './fields.ts';
import { FieldProblem } from './issues.ts';
import { money } from './money.ts';
import { nullable, optional, required } from './record.ts';
import { differences, upsertRows } from './write.ts';

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
    const rows = records.map(({ row }) => ({ ...row }));
    const { rows: found } = await sql<{ id: number; created_at: string; updated_at: string }>`
      select id, ${sql.raw(isoText('created_at'))} as created_at, ${sql.raw(isoText('updated_at'))} as updated_at
      from nfe_received where id = any(${rows.map((r) => r.id)}::integer[])`.execute(ctx.tx);
    const stored = new Map(found.map((r) => [r.id, r]));
    const differing = await differences(
      ctx,
      'nfe_received',
      rows.filter((r) => stored.has(r.id)),
      ['created_at', 'updated_at'],
    );
    for (const row of rows) {
      const previous = stored.get(row.id);
      row.created_at ??= previous?.created_at ?? now;
      row.updated_at ??= previous && !differing.has(row.id) ? previous.updated_at : now;
    }
    await upsertRows(ctx, 'nfe_received', rows, 'id', true);
    return { nfe_received: rows.length };
  },
};
