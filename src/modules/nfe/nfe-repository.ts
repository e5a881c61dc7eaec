// SQL of the received NF-e routes and the brands. Every query is scoped by the restaurant. The
// brand a note is shown with comes from the same query (a join); SPED is read as text so its
// numbers keep their written form, and instants as UTC text (instant-text.ts says why).
import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type Prepared, prepared } from '../../db/prepared.ts';
import type { NfeReceivedTable } from '../../db/types.ts';
import type { NfeListFilter } from './list-query.ts';

export type BrandRow = { id: number; name: string; fantasy_name: string | null; cnpj: string | null };

const INSTANTS = [
  'manifested_at',
  'correction_issued_at',
  'canceled_at',
  'locally_canceled_at',
  'issued_at',
  'processing_at',
  'created_at',
  'updated_at',
] as const;
type Instant = (typeof INSTANTS)[number];
const INSTANT_TEXTS = INSTANTS.map((column) =>
  sql<string | null>`(${sql.ref(`n.${column}`)} at time zone 'UTC')::text`.as(column),
);
const SPED_TEXT = sql<string | null>`n.sped::text`.as('sped');

/**
 * A note as read: the table's columns (SPED as JSON text, instants as PostgreSQL's text of the
 * UTC timestamp, e.g. '2026-01-10 13:00:00.5') and the linked brand's.
 */
export type NoteRow = Omit<Selectable<NfeReceivedTable>, 'sped' | 'is_stock_transfer' | Instant> & {
  [column in Instant]: string | null;
} & {
  sped: string | null;
  brand_name: string | null;
  brand_fantasy_name: string | null;
  brand_cnpj: string | null;
};

const NOTE_COLUMNS = [
  'n.id',
  'n.restaurant_id',
  'n.brand_id',
  'b.name as brand_name',
  'b.fantasy_name as brand_fantasy_name',
  'b.cnpj as brand_cnpj',
  'n.access_key',
  'n.series',
  'n.state',
  'n.type',
  'n.issuer_name',
  'n.issuer_document',
  'n.total',
  'n.situation',
  'n.complete',
  'n.manifestation_type',
  'n.correction_number',
  'n.correction_text',
  'n.cancellation_reason',
  'n.return_reference',
  'n.reference',
  'n.url',
  'n.provider_id',
  'n.version',
  'n.digest',
] as const;

/** Local "no manifestation yet": null, or the provider's literal "nulo" copied by an import. */
const PENDING = ['nulo', 'ciencia', 'desconhecimento'];

function notes(db: Db, restaurantId: number) {
  return db
    .selectFrom('nfe_received as n')
    .leftJoin('brands as b', (join) =>
      join.onRef('b.restaurant_id', '=', 'n.restaurant_id').onRef('b.id', '=', 'n.brand_id'),
    )
    .select(NOTE_COLUMNS)
    .select(INSTANT_TEXTS)
    .select(SPED_TEXT)
    .where('n.restaurant_id', '=', restaurantId);
}

/** `brand`: the selected brand and whether notes without a brand belong to it (the default brand). */
export async function listNotes(
  db: Db,
  restaurantId: number,
  filter: NfeListFilter,
  brand: { id: number; withUnlinked: boolean } | null,
): Promise<NoteRow[]> {
  let query = notes(db, restaurantId)
    .where('n.situation', '=', 'autorizada')
    .where('n.canceled_at', 'is', null)
    .where('n.is_stock_transfer', '=', false)
    .where('n.issued_at', '>=', filter.start)
    .where('n.issued_at', '<=', filter.endInclusive)
    .where((eb) =>
      filter.pending
        ? eb.or([eb('n.manifestation_type', 'is', null), eb('n.manifestation_type', 'in', PENDING)])
        : eb('n.manifestation_type', '=', 'confirmacao'),
    );
  if (brand) {
    query = query.where((eb) =>
      brand.withUnlinked
        ? eb.or([eb('n.brand_id', '=', brand.id), eb('n.brand_id', 'is', null)])
        : eb('n.brand_id', '=', brand.id),
    );
  }
  return query.orderBy('n.issued_at').orderBy('n.id').execute();
}

type NoteWithToken = NoteRow & { brand_token: string | null };
let noteById: Prepared<NoteWithToken> | undefined;

/**
 * A note, with its linked brand's stored fiscal token (null without a brand link). Every detail
 * read runs it: built once with the list's columns, then a prepared statement (db/prepared.ts).
 */
export async function findNote(db: Db, restaurantId: number, id: number): Promise<NoteWithToken | undefined> {
  noteById ??= prepared<NoteWithToken>(
    notes(db, 0).select('b.fiscal_token_encrypted as brand_token').where('n.id', '=', 0).compile().sql,
  );
  const { rows } = await noteById(db, [restaurantId, id]);
  return rows[0];
}

const BRAND_COLUMNS = ['id', 'name', 'fantasy_name', 'cnpj'] as const;

/** The restaurant's brands that count: deleted brands never do. */
const activeBrands = (db: Db, restaurantId: number) =>
  db.selectFrom('brands').where('restaurant_id', '=', restaurantId).where('deleted_at', 'is', null);

/** GET /v1/brands: in id order; whether a fiscal token is stored is read, never the token. */
export function listBrands(db: Db, restaurantId: number) {
  return activeBrands(db, restaurantId)
    .select([...BRAND_COLUMNS, 'is_default'])
    .select(sql<boolean>`fiscal_token_encrypted is not null`.as('fiscal_configured'))
    .orderBy('id')
    .execute();
}

/** A brand that can be selected. */
export const findActiveBrand = (db: Db, restaurantId: number, id: number): Promise<BrandRow | undefined> =>
  activeBrands(db, restaurantId).select(BRAND_COLUMNS).where('id', '=', id).executeTakeFirst();

/** The restaurant's nfe_version; undefined when there is no such restaurant. */
export async function findNfeVersion(db: Db, restaurantId: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('restaurants')
    .select('nfe_version')
    .where('id', '=', restaurantId)
    .executeTakeFirst();
  return row?.nfe_version;
}

/** The brand flagged default, else the first brand by id. */
export async function findDefaultBrand(db: Db, restaurantId: number): Promise<BrandRow | undefined> {
  return activeBrands(db, restaurantId)
    .select(BRAND_COLUMNS)
    .orderBy('is_default', 'desc')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

/** The brand's stored fiscal token (encrypted), or null. */
export async function findBrandCredential(db: Db, restaurantId: number, brandId: number) {
  const query = activeBrands(db, restaurantId).select('fiscal_token_encrypted').where('id', '=', brandId);
  return (await query.executeTakeFirst())?.fiscal_token_encrypted ?? null;
}

/** An active, non-deleted supplier whose document has the same digits (formatting ignored). */
export async function findSupplierByDocument(db: Db, restaurantId: number, document: string) {
  const digits = document.replace(/\D/g, '');
  if (digits === '') return null;
  const row = await db
    .selectFrom('suppliers')
    .select('id')
    .where('restaurant_id', '=', restaurantId)
    .where('active', '=', true)
    .where('deleted_at', 'is', null)
    .where(sql<string>`regexp_replace(document, '[^0-9]', '', 'g')`, '=', digits)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

export async function isReturnInProgress(db: Db, restaurantId: number, noteId: number, reference: string) {
  const row = await db
    .selectFrom('nfe_received')
    .select('id')
    .where('restaurant_id', '=', restaurantId)
    .where('reference', '=', reference)
    .where('situation', '=', 'processando_autorizacao')
    .where('id', '<>', noteId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
