// Rows -> the API shape of a received NF-e: the common fields (2.7) from the local snapshot, and
// the detail (2.8), where the provider's summary replaces issue date, issuer, total, situation,
// completeness, manifestation, version and digest. A row that breaks the shape every note must
// have is a 500 data validation failure, never a half-written answer.
import { errors } from '../../http/errors.ts';
import { releaseBuffer } from '../../lib/release-buffer.ts';
import { assertDateTime, isoOf, isRealInstant } from './instant-text.ts';
import type { BrandRow, NoteRow } from './nfe-repository.ts';
import { parseProviderJson } from './provider-json.ts';
import { type MappedProviderBody, manifestationType, type ProviderDetail } from './provider-mapping.ts';

const iso = (text: string | null) => (text === null ? null : isoOf(text));

function assertNoteShape(row: NoteRow): void {
  const valid =
    /^\d{44}$/.test(row.access_key) &&
    /^-?\d+\.\d{2}$/.test(row.total) &&
    row.issued_at !== null &&
    isRealInstant(row.issued_at) &&
    (row.brand_id === null || typeof row.brand_name === 'string');
  if (!valid) throw errors.dataValidation();
}

/** Positions 26-34 of the access key: the note's number, nine digits kept. */
const numberOf = (accessKey: string) => accessKey.slice(25, 34);

/** The linked brand, or the default brand for presentation when the note has none. */
function brandOf(row: NoteRow, defaultBrand: BrandRow | null): BrandRow | null {
  if (row.brand_id === null) return defaultBrand;
  return {
    id: row.brand_id,
    name: row.brand_name as string,
    fantasy_name: row.brand_fantasy_name,
    cnpj: row.brand_cnpj,
  };
}

export function mapReceivedNfe(row: NoteRow, defaultBrand: BrandRow | null) {
  assertNoteShape(row);
  const brand = brandOf(row, defaultBrand);
  return {
    id: row.id,
    restaurant_id: row.restaurant_id,
    brand_id: row.brand_id,
    brand: brand && { id: brand.id, name: brand.name, fantasy_name: brand.fantasy_name, cnpj: brand.cnpj },
    identification: {
      access_key: row.access_key,
      number: numberOf(row.access_key),
      series: row.series,
      state: row.state,
      type: row.type,
    },
    issuer: { name: row.issuer_name, document: row.issuer_document },
    amounts: { total: row.total },
    status: { situation: row.situation, complete: row.complete },
    manifestation: { type: manifestationType(row.manifestation_type), manifested_at: iso(row.manifested_at) },
    correction: {
      number: row.correction_number,
      text: row.correction_text,
      issued_at: iso(row.correction_issued_at),
    },
    cancellation: {
      canceled_at: iso(row.canceled_at),
      reason: row.cancellation_reason,
      locally_canceled_at: iso(row.locally_canceled_at),
    },
    references: {
      return_reference: row.return_reference,
      reference: row.reference,
      url: row.url,
      provider_id: row.provider_id,
    },
    fiscal: {
      version: row.version,
      digest: row.digest,
      sped: row.sped === null ? null : parseProviderJson(row.sped),
    },
    timestamps: {
      issued_at: isoOf(row.issued_at as string),
      processing_at: iso(row.processing_at),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    },
  };
}

export type ReceivedNfe = ReturnType<typeof mapReceivedNfe>;

/**
 * What the schema serialiser checked (while nullable fields were anyOf) beyond writing these
 * shapes' values in schema order: nullable instants must be date-time strings. Run on every
 * note before any is written, as the serialiser ran after the whole response was mapped.
 */
export function assertSerialisable(note: ReceivedNfe): void {
  assertDateTime(note.manifestation.manifested_at, 'manifestation.manifested_at');
  assertDateTime(note.correction.issued_at, 'correction.issued_at');
  assertDateTime(note.cancellation.canceled_at, 'cancellation.canceled_at');
  assertDateTime(note.cancellation.locally_canceled_at, 'cancellation.locally_canceled_at');
  assertDateTime(note.timestamps.processing_at, 'timestamps.processing_at');
  assertDateTime(note.timestamps.created_at, 'timestamps.created_at');
  assertDateTime(note.timestamps.updated_at, 'timestamps.updated_at');
}

export type DetailExtras = { providerId: number | null; returnInProgress: boolean };

/** `local` is the mapped local note, checked before the provider was queried. */
export function mapReceivedNfeDetail(
  local: ReceivedNfe,
  provider: Omit<ProviderDetail, 'keys'>,
  extras: DetailExtras,
) {
  const summary = provider.summary;
  return {
    ...local,
    issuer: { name: summary.issuerName, document: summary.issuerDocument },
    amounts: { total: summary.total },
    status: { situation: summary.situation, complete: summary.complete },
    manifestation: { type: summary.manifestationType, manifested_at: local.manifestation.manifested_at },
    references: { ...local.references, provider_id: extras.providerId },
    fiscal: { ...local.fiscal, version: summary.version, digest: summary.digest },
    timestamps: { ...local.timestamps, issued_at: summary.issuedAt },
    recipient: provider.recipient,
    invoice: provider.invoice,
    protocol: provider.protocol,
    processing: { return_in_progress: extras.returnInProgress },
  };
}

/**
 * The detail's body as UTF-8: the fields up to `recipient` as the schema serialiser wrote them
 * (JSON.stringify of keys already in schema order), the provider's invoice and protocol as mapped
 * (a worker's bytes, freed once copied), then `processing`.
 */
export function receivedNfeDetailBody(
  local: ReceivedNfe,
  provider: MappedProviderBody,
  extras: DetailExtras,
): Buffer {
  const { summary, recipient } = provider;
  const detail = mapReceivedNfeDetail(local, { summary, recipient, invoice: null, protocol: null }, extras);
  const { invoice, protocol, processing, ...head } = detail;
  assertSerialisable(head);
  const document = provider.documentBytes ?? Buffer.from(provider.documentJson);
  const opening = Buffer.from(`${JSON.stringify(head).slice(0, -1)},`);
  const closing = Buffer.from(`,"processing":${JSON.stringify(processing)}}`);
  const body = Buffer.concat([opening, document, closing]);
  releaseBuffer(document);
  return body;
}
