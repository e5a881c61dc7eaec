// The received NF-e use cases: the list (local notes of a period and a brand) and the detail
// (the local note, enriched by one provider query made with the brand's fiscal credential).
// Nothing here writes or manifests; list-cache.ts keeps rendered lists.
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { inSnapshot } from '../../db/transaction.ts';
import { errors } from '../../http/errors.ts';
import { decryptSecret } from '../../lib/encryption.ts';
import type { Slots } from '../../lib/slots.ts';
import type { DetailPool } from './detail-pool.ts';
import { receivedNfeListBody } from './list-body.ts';
import type { NfeListFilter } from './list-query.ts';
import { type DetailExtras, mapReceivedNfe, receivedNfeDetailBody } from './nfe-map.ts';
import {
  findActiveBrand,
  findBrandCredential,
  findDefaultBrand,
  findNfeVersion,
  findNote,
  findSupplierByDocument,
  isReturnInProgress,
  listNotes,
  type NoteRow,
} from './nfe-repository.ts';
import { fetchProviderAnswer } from './provider-client.ts';

/**
 * The list's JSON body for a checked query, read from the database (the route's response schema
 * documents it; list-bytes.test.ts holds it to it). list-cache.ts keeps it per nfe_version.
 */
export async function renderReceivedNfeList(
  db: Db,
  restaurantId: number,
  filter: NfeListFilter,
): Promise<Buffer> {
  const defaultBrand = (await findDefaultBrand(db, restaurantId)) ?? null;
  let selected = defaultBrand;
  if (filter.brandId !== undefined) {
    selected = (await findActiveBrand(db, restaurantId, filter.brandId)) ?? null;
    if (!selected) throw errors.brandNotFound();
  }
  // Notes without a brand belong to the default brand; with no brand at all, every note is listed.
  const brand = selected && { id: selected.id, withUnlinked: selected.id === defaultBrand?.id };
  const rows = await listNotes(db, restaurantId, filter, brand);
  return receivedNfeListBody(rows.map((row) => mapReceivedNfe(row, defaultBrand)));
}

/**
 * The list and the nfe_version it is exact for, read in one snapshot: the brands, the notes (with
 * their joined brands) and the version otherwise come from separate statements, and a write
 * committed between them would give a body whose parts disagree (a brand under two names, unlinked
 * notes under a brand no longer the default), kept under a version it does not match. REPEATABLE
 * READ READ ONLY is the transaction's own (BEGIN ... ISOLATION LEVEL), no session state: it holds
 * through PgBouncer's transaction mode. `version` is undefined when there is no such restaurant.
 */
export async function readReceivedNfeList(
  db: Db,
  restaurantId: number,
  filter: NfeListFilter,
): Promise<{ version: number | undefined; body: Buffer }> {
  return inSnapshot(db, async (tx) => {
    // The first statement takes the snapshot every later one reads.
    const version = await findNfeVersion(tx, restaurantId);
    return { version, body: await renderReceivedNfeList(tx, restaurantId, filter) };
  });
}

export async function getReceivedNfe(
  ctx: AppContext,
  restaurantId: number,
  id: number,
  log: FastifyBaseLogger,
  slots?: Slots,
  pool?: DetailPool,
): Promise<Buffer> {
  const { db, config } = ctx;
  const note = await findNote(db, restaurantId, id);
  if (!note) throw errors.nfeNotFound();
  const defaultBrand = note.brand_id === null ? ((await findDefaultBrand(db, restaurantId)) ?? null) : null;
  const local = mapReceivedNfe(note, defaultBrand);
  const brandId = note.brand_id ?? defaultBrand?.id;
  // A note without a brand is read with the default brand's credential (brand_token is then null).
  const stored = defaultBrand
    ? await findBrandCredential(db, restaurantId, defaultBrand.id)
    : note.brand_token;
  const token = stored ? decryptToken(stored, ctx.secrets.fiscalTokenKey, log, brandId as number) : '';
  if (token.trim() === '') throw errors.fiscalNotConfigured();
  const extras = startDetailExtras(db, restaurantId, note);
  const simulator = ctx.fiscalSimulator;
  const provider = await fetchProviderAnswer({
    baseUrl: simulator?.tokens.has(token) ? simulator.url : config.fiscalProviderUrl,
    timeoutMs: config.fiscalTimeoutMs,
    token,
    accessKey: note.access_key,
    logger: log,
    slots,
    mapBody: pool?.mapBody,
  });
  return receivedNfeDetailBody(local, provider, await extras(provider.summary.issuerDocument));
}

const digits = (document: string) => document.replace(/\D/g, '');

/**
 * The supplier and the return in progress, looked up while the provider answers: the supplier by
 * the local issuer document, looked up again when the provider's has other digits. A lookup
 * that failed is made again after the provider's answer, so its error comes when it always did.
 */
function startDetailExtras(db: Db, restaurantId: number, note: NoteRow) {
  const early = <T>(lookup: Promise<T>) =>
    lookup.then(
      (value) => ({ value }),
      () => undefined,
    );
  const supplier = early(findSupplierByDocument(db, restaurantId, note.issuer_document));
  const reference = note.return_reference;
  const returning =
    reference === null
      ? Promise.resolve({ value: false })
      : early(isReturnInProgress(db, restaurantId, note.id, reference));
  return async (issuerDocument: string): Promise<DetailExtras> => {
    const [found, pending] = await Promise.all([supplier, returning]);
    const [providerId, returnInProgress] = await Promise.all([
      found && digits(issuerDocument) === digits(note.issuer_document)
        ? found.value
        : findSupplierByDocument(db, restaurantId, issuerDocument),
      pending ? pending.value : isReturnInProgress(db, restaurantId, note.id, reference as string),
    ]);
    return { providerId, returnInProgress };
  };
}

/** A stored credential the configured key cannot open is a server fault: 500, never the value. */
function decryptToken(stored: string, key: string, log: FastifyBaseLogger, brandId: number): string {
  try {
    return decryptSecret(stored, key);
  } catch {
    log.error({ brand_id: brandId }, 'the brand fiscal token cannot be decrypted with FISCAL_TOKEN_KEY');
    throw errors.dataValidation();
  }
}
