// The list's body, written note by note as UTF-8 into one buffer: the schema serialiser
// (fast-json-stringify) ran ajv format checks for every nullable field (its anyOf branches) and
// JSON.stringify of 2,000 notes then needed a second pass to become bytes. The text is the
// same, key for key: list-bytes.test.ts holds it to the serialiser's output.
import { ByteWriter } from '../../lib/byte-writer.ts';
import { assertSerialisable, type ReceivedNfe } from './nfe-map.ts';

/** No character JSON.stringify escapes: written between quotes as it is. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what JSON escapes.
const PLAIN = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;
const text = (value: string | null) =>
  value === null ? 'null' : PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
/** Texts made of digits and ISO 8601 punctuation only (the key, its number, the total, instants). */
const safe = (value: string | null) => (value === null ? 'null' : `"${value}"`);

function noteJson(n: ReceivedNfe): string {
  const { brand, identification: id, correction, cancellation, references, timestamps: at } = n;
  const brandJson =
    brand === null
      ? 'null'
      : `{"id":${brand.id},"name":${text(brand.name)},"fantasy_name":${text(brand.fantasy_name)},"cnpj":${text(brand.cnpj)}}`;
  return (
    `{"id":${n.id},"restaurant_id":${n.restaurant_id},"brand_id":${n.brand_id},"brand":${brandJson},` +
    `"identification":{"access_key":${safe(id.access_key)},"number":${safe(id.number)},"series":${text(id.series)},"state":${text(id.state)},"type":${text(id.type)}},` +
    `"issuer":{"name":${text(n.issuer.name)},"document":${text(n.issuer.document)}},"amounts":{"total":${safe(n.amounts.total)}},` +
    `"status":{"situation":${text(n.status.situation)},"complete":${n.status.complete}},` +
    `"manifestation":{"type":${text(n.manifestation.type)},"manifested_at":${safe(n.manifestation.manifested_at)}},` +
    `"correction":{"number":${correction.number},"text":${text(correction.text)},"issued_at":${safe(correction.issued_at)}},` +
    `"cancellation":{"canceled_at":${safe(cancellation.canceled_at)},"reason":${text(cancellation.reason)},"locally_canceled_at":${safe(cancellation.locally_canceled_at)}},` +
    `"references":{"return_reference":${text(references.return_reference)},"reference":${text(references.reference)},"url":${text(references.url)},"provider_id":${references.provider_id}},` +
    `"fiscal":{"version":${n.fiscal.version},"digest":${text(n.fiscal.digest)},"sped":${JSON.stringify(n.fiscal.sped)}},` +
    `"timestamps":{"issued_at":${safe(at.issued_at)},"processing_at":${safe(at.processing_at)},"created_at":${safe(at.created_at)},"updated_at":${safe(at.updated_at)}}}`
  );
}

/** `[note,note,...]` as the response schema's serialiser wrote it, as UTF-8 (kept: ByteWriter#take). */
export function receivedNfeListBody(notes: ReceivedNfe[]): Buffer {
  for (const note of notes) assertSerialisable(note);
  const body = new ByteWriter(notes.length * 1024 + 2);
  for (let i = 0; i < notes.length; i++) body.text(`${i ? ',' : '['}${noteJson(notes[i])}`);
  body.text(notes.length ? ']' : '[]');
  return body.take();
}
