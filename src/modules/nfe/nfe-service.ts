// The received NF-e use cases: the list (local notes of a period and a brand) and the detail
// (the local note, enriched by one provider query made with the brand's fiscal credential).
// Nothing here writes, caches or manifests.
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../app.ts';
import type { Db } from '../../db/database.ts';
import { errors } from '../../http/errors.ts';
import { decryptSecret } from '../../lib/encryption.ts';
import { MAX_ID, parseNfeListQuery } from './list-query.ts';
import { mapReceivedNfe, mapReceivedNfeDetail } from './nfe-map.ts';
import {
  findActiveBrand,
  findBrandCredential,
  findDefaultBrand,
  findNote,
  findSupplierByDocument,
  isReturnInProgress,
  listNotes,
} from './nfe-repository.ts';
import type { NfeListQuerystring } from './nfe-schema.ts';
import { fetchReceivedNfe } from './provider-client.ts';
import { mapProviderDetail } from './provider-mapping.ts';

export async function listReceivedNfe(db: Db, restaurantId: number, query: NfeListQuerystring) {
  const filter = parseNfeListQuery(query);
  const defaultBrand = (await findDefaultBrand(db, restaurantId)) ?? null;
  let selected = defaultBrand;
  if (filter.brandId !== undefined) {
    selected = (await findActiveBrand(db, restaurantId, filter.brandId)) ?? null;
    if (!selected) throw errors.brandNotFound();
  }
  // Notes without a brand belong to the default brand; with no brand at all, every note is listed.
  const brand = selected && { id: selected.id, withUnlinked: selected.id === defaultBrand?.id };
  const rows = await listNotes(db, restaurantId, filter, brand);
  return rows.map((row) => mapReceivedNfe(row, defaultBrand));
}

function noteId(raw: string): number {
  const id = Number(raw);
  if (id > MAX_ID) {
    throw errors.invalidParameter(`Invalid path parameter: nfe_received_id must be at most ${MAX_ID}.`, [
      { field: 'nfe_received_id', message: `must be at most ${MAX_ID}` },
    ]);
  }
  return id;
}

export async function getReceivedNfe(
  ctx: AppContext,
  restaurantId: number,
  rawId: string,
  log: FastifyBaseLogger,
) {
  const { db, config } = ctx;
  const note = await findNote(db, restaurantId, noteId(rawId));
  if (!note) throw errors.nfeNotFound();
  const defaultBrand = note.brand_id === null ? ((await findDefaultBrand(db, restaurantId)) ?? null) : null;
  const local = mapReceivedNfe(note, defaultBrand);
  const brandId = note.brand_id ?? defaultBrand?.id;
  const stored = brandId === undefined ? null : await findBrandCredential(db, restaurantId, brandId);
  const token = stored ? decryptToken(stored, ctx.secrets.fiscalTokenKey, log, brandId as number) : '';
  if (token.trim() === '') throw errors.fiscalNotConfigured();
  const document = await fetchReceivedNfe({
    baseUrl: config.fiscalProviderUrl,
    timeoutMs: config.fiscalTimeoutMs,
    token,
    accessKey: note.access_key,
    logger: log,
  });
  const provider = mapProviderDetail(document);
  const [providerId, returnInProgress] = await Promise.all([
    findSupplierByDocument(db, restaurantId, provider.summary.issuerDocument),
    note.return_reference !== null && isReturnInProgress(db, restaurantId, note.id, note.return_reference),
  ]);
  return mapReceivedNfeDetail(local, provider, { providerId, returnInProgress });
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
