// Received NF-e of one restaurant: 2,000 listed notes (authorized, confirmed) in a 90-day window,
// pending and out-of-window notes around them, suppliers, a default brand with its encrypted
// fiscal token, and two complete notes whose provider documents (served by the simulator) are
// 1 MiB and 45 KiB (a typical note of a few dozen items).
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import {
  buildProviderDocument,
  type ProviderDocument,
  type SimulatorNote,
} from '../src/fiscal-simulator/simulator-documents.ts';
import { encryptSecret } from '../src/lib/encryption.ts';
import { rawJSON } from '../src/modules/nfe/provider-json.ts';

export type NfeSet = { restaurantId: number; listed: number };

export const NFE_WINDOW = { start_date: '2026-01-01T00:00:00Z', end_date: '2026-03-31T23:59:59Z' };
export const FISCAL_TOKEN = 'bench-fiscal-provider-token';
const DOCUMENT_BYTES = 1024 * 1024;
const TYPICAL_DOCUMENT_BYTES = 45 * 1024;
const ISSUER = '12345678000199';

/** The note the detail scenario reads (id: detailNoteId). */
export const DETAIL_NOTE: SimulatorNote = {
  access_key: `35260112345678000199550010000000011000000010`,
  issuer_name: 'Distribuidora Bench Ltda',
  issuer_document: ISSUER,
  total: '15234.56',
  issued_at: '2026-01-01T00:00:00Z',
  manifestation_type: 'confirmacao',
};

export const detailNoteId = (restaurantId: number) => restaurantId * 100_000;

/** The 45 KiB note (id: typicalNoteId), beside the 1 MiB one. */
export const TYPICAL_NOTE: SimulatorNote = {
  ...DETAIL_NOTE,
  access_key: `35260112345678000199550010000000021000000020`,
  total: '1234.56',
  // Before the listed window: the list row keeps its 2,000 notes.
  issued_at: '2025-12-01T00:00:00Z',
};

export const typicalNoteId = (restaurantId: number) => restaurantId * 100_000 + 1;

export async function seedNfe(db: Db, set: NfeSet, fiscalTokenKey: string): Promise<void> {
  const r = set.restaurantId;
  const base = detailNoteId(r);
  const token = encryptSecret(FISCAL_TOKEN, fiscalTokenKey);
  await db.connection().execute(async (conn) => {
    const run = (query: string) => sql.raw(query).execute(conn);
    await run(`insert into brands (id, restaurant_id, name, fantasy_name, cnpj, is_default, fiscal_token_encrypted)
      values (${base + 1}, ${r}, 'Bench Ltda', 'Bench', '01234567000189', true, '${token}')`);
    await run(`insert into suppliers (id, restaurant_id, name, document)
      select ${r * 1000} + g, ${r}, 'Fornecedor ' || g, lpad((12345678000100 + g)::text, 14, '0')
      from generate_series(1, 20) g`);
    // Three notes per listed one (the detail note is the last listed): the listed (confirmed, in
    // the window), a pending one in the window and one before it. One in ten has no brand link.
    await run(`insert into nfe_received (id, restaurant_id, brand_id, access_key, series, state, type, issuer_name,
        issuer_document, total, situation, complete, manifestation_type, manifested_at, version, issued_at)
      select ${base} + g, ${r}, case when g % 10 <> 0 then ${base + 1} end,
        '352601' || lpad((12345678000100 + g % 20)::text, 14, '0') || '55001' || lpad(g::text, 9, '0') || '1'
          || lpad(g::text, 8, '0') || (g % 10),
        '1', 'SP', '1', 'Fornecedor ' || (g % 20), lpad((12345678000100 + g % 20)::text, 14, '0'),
        round((10 + (g * 7919) % 500000 / 100.0)::numeric, 2), 'autorizada', g % 2 = 0,
        case g % 3 when 0 then 'confirmacao' when 1 then 'ciencia' end,
        case when g % 3 = 0 then timestamptz '2026-04-01T12:00:00Z' end, 1,
        case when g % 3 = 2 then timestamptz '2025-10-01T00:00:00Z' else timestamptz '${NFE_WINDOW.start_date}' end
          + g * interval '1290 seconds'
      from generate_series(3, ${set.listed * 3 - 1}) g`);
  });
  for (const [id, n] of [
    [base, DETAIL_NOTE],
    [typicalNoteId(r), TYPICAL_NOTE],
  ] as const) {
    await db
      .insertInto('nfe_received')
      .values({
        id,
        restaurant_id: r,
        brand_id: base + 1,
        access_key: n.access_key,
        issuer_name: n.issuer_name,
        issuer_document: n.issuer_document,
        total: String(n.total),
        situation: 'autorizada',
        complete: true,
        manifestation_type: 'confirmacao',
        issued_at: new Date(n.issued_at),
      })
      .execute();
  }
}

/** A note's full provider document, its items repeated up to `bytes` of JSON (1 MiB: the detail note's). */
export function detailDocument(note = DETAIL_NOTE, bytes = DOCUMENT_BYTES): ProviderDocument {
  const document = buildProviderDocument(note);
  const invoice = document.requisicao_nota_fiscal as { itens: Record<string, unknown>[] };
  const [item] = invoice.itens;
  const itemBytes = JSON.stringify(item).length + 1;
  const count = Math.max(1, Math.ceil((bytes - JSON.stringify(document).length) / itemBytes) + 1);
  invoice.itens = Array.from({ length: count }, (_, k) => ({ ...item, numero_item: rawJSON(String(k + 1)) }));
  return document;
}

export const typicalDocument = () => detailDocument(TYPICAL_NOTE, TYPICAL_DOCUMENT_BYTES);
