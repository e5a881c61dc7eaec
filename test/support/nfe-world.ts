// Received NF-e worlds for tests, written with direct inserts (the same rows an import writes):
// restaurants, brands with encrypted fiscal tokens, suppliers and notes. Ids are generated.
import type { Insertable } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { NfeReceivedTable } from '../../src/db/types.ts';
import { buildProviderDocument } from '../../src/fiscal-simulator/simulator-documents.ts';
import { encryptSecret } from '../../src/lib/encryption.ts';

export const NFE_SCOPE = 'nfe-received:read';

/** A 44-digit access key whose number (positions 26-34) is `number`, with a valid check digit. */
export function accessKey(
  number: number,
  { cnpj = '12345678000199', series = 1, code = number } = {},
): string {
  const body = `352601${cnpj}55${String(series).padStart(3, '0')}${String(number).padStart(9, '0')}1${String(
    code,
  )
    .padStart(8, '0')
    .slice(-8)}`;
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * ((i % 8) + 2);
  const rest = sum % 11;
  return `${body}${rest < 2 ? 0 : 11 - rest}`;
}

export async function insertRestaurant(db: Db, name = 'Cantina Bella'): Promise<number> {
  const row = await db.insertInto('restaurants').values({ name }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export type BrandInput = {
  name?: string;
  fantasyName?: string | null;
  cnpj?: string | null;
  isDefault?: boolean;
  /** Plain token, stored encrypted with `key`; null: not configured. */
  fiscalToken?: string | null;
  /** Stored as it is (e.g. a value no key can open). */
  storedToken?: string | null;
  deleted?: boolean;
};

export async function insertBrand(db: Db, restaurantId: number, key: string, input: BrandInput = {}) {
  const token = input.fiscalToken ? encryptSecret(input.fiscalToken, key) : null;
  const row = await db
    .insertInto('brands')
    .values({
      restaurant_id: restaurantId,
      name: input.name ?? 'Bella',
      fantasy_name: input.fantasyName === undefined ? 'Cantina Bella Ltda' : input.fantasyName,
      cnpj: input.cnpj === undefined ? '01234567000189' : input.cnpj,
      is_default: input.isDefault ?? false,
      fiscal_token_encrypted: input.storedToken !== undefined ? input.storedToken : token,
      deleted_at: input.deleted ? new Date('2026-01-01T00:00:00Z') : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function insertSupplier(
  db: Db,
  restaurantId: number,
  input: { document: string | null; active?: boolean; deleted?: boolean; name?: string },
) {
  const row = await db
    .insertInto('suppliers')
    .values({
      restaurant_id: restaurantId,
      name: input.name ?? 'Distribuidora Sul',
      document: input.document,
      active: input.active ?? true,
      deleted_at: input.deleted ? new Date('2026-01-01T00:00:00Z') : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

let sequence = 1000;

/** The issuer, total and issue time of a note insertNote writes unless told otherwise. */
const NOTE_ISSUE = {
  issuer_name: 'Distribuidora Sul',
  issuer_document: '12345678000199',
  total: '300.00',
  issued_at: '2026-01-10T13:00:00Z',
};

/** The fiscal provider's document of the note `access_key` with insertNote's default issue. */
export const providerDocumentOf = (access_key: string) =>
  buildProviderDocument({ access_key, ...NOTE_ISSUE });

export type NoteInput = Omit<Partial<Insertable<NfeReceivedTable>>, 'restaurant_id'>;

/** A confirmed, authorized note of 2026-01-10 unless told otherwise; `sped` is JSON text. */
export async function insertNote(db: Db, restaurantId: number, input: NoteInput = {}): Promise<number> {
  sequence += 1;
  const row = await db
    .insertInto('nfe_received')
    .values({
      restaurant_id: restaurantId,
      brand_id: null,
      access_key: accessKey(sequence),
      series: '1',
      state: 'SP',
      type: '1',
      ...NOTE_ISSUE,
      situation: 'autorizada',
      complete: true,
      manifestation_type: 'confirmacao',
      manifested_at: '2026-01-11T10:00:00Z',
      created_at: '2026-01-10T13:05:00Z',
      updated_at: '2026-01-10T13:05:00Z',
      ...input,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The summary fields of a provider document, each empty or at its least (detail documents at the edges). */
export const PROVIDER_SUMMARY = {
  nome_emitente: '',
  documento_emitente: '',
  valor_total: '10.00',
  data_emissao: '',
  situacao: '',
  nfe_completa: true,
  versao: 1,
};

/** An object giving each of `fields` the same `value`. */
export const every = (fields: string[], value: unknown) =>
  Object.fromEntries(fields.map((field) => [field, value]));
