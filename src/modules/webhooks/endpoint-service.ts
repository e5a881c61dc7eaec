// Webhook endpoints of a restaurant: create (the secret is shown once), read, delete, enable again,
// rotate the secret (each replaced one keeps signing 24 h), queue a ping, list the deliveries with
// their attempts.

import type { Db } from '../../db/database.ts';
import { unstorable } from '../../db/storable-text.ts';
import { errors } from '../../http/errors.ts';
import type { Principal } from '../../http/principal.ts';
import { encryptSecret } from '../../lib/encryption.ts';
import { isEventType, missingScope } from '../events/event-types.ts';
import type { Creator, DeliveryRow, EndpointRow } from './endpoint-repository.ts';
import * as repository from './endpoint-repository.ts';
import type { CreateEndpointInput } from './schemas.ts';
import { newSecret } from './signer.ts';
import { checkWebhookUrl, UnsafeUrlError } from './url-safety.ts';

const PREVIOUS_SECRET_HOURS = 24;

/**
 * Replaced secrets that keep signing, the newest first: rotation has no limit but the credential's
 * request rate, and each replaced secret adds a signature to every delivery for 24 hours. A
 * rotation beyond them ends the oldest one's 24 hours at once.
 */
const MAX_PREVIOUS_SECRETS = 5;

/** Endpoints per restaurant: each one multiplies the deliveries of every write. */
export const MAX_ENDPOINTS = 16;

type Keys = { secretKey: string; allowPrivate: boolean };

export function mapEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.disabled_at ? ('disabled' as const) : ('enabled' as const),
    disabled_at: row.disabled_at?.toISOString() ?? null,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at:
      row.previous_secret_expires_at && row.previous_secret_expires_at > new Date()
        ? row.previous_secret_expires_at.toISOString()
        : null,
    created_at: row.created_at.toISOString(),
  };
}

/** The credential an endpoint is made or enabled by; none for a restaurant session (the console). */
function creatorOf(principal: Principal): Creator {
  if (principal.kind === 'restaurant_session') return null;
  return { apiKeyId: principal.apiKeyId, oauthClientId: principal.oauthClientId, tokenId: principal.tokenId };
}

function mapDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at?.toISOString() ?? null,
    attempts: row.attempt_log,
  };
}

export async function createEndpoint(
  db: Db,
  restaurantId: number,
  principal: Principal,
  body: CreateEndpointInput,
  keys: Keys,
) {
  for (const field of ['url', 'description'] as const) {
    const message = unstorable(body[field] ?? '');
    if (message) throw errors.invalidBody(`Invalid body: ${field} ${message}.`, [{ field, message }]);
  }
  const unknown = body.events.filter((type) => !isEventType(type));
  if (unknown.length) {
    const message = `names unknown event types: ${unknown.join(', ')}`;
    throw errors.invalidBody(`Invalid body: events ${message}.`, [{ field: 'events', message }]);
  }
  const events = [...new Set(body.events)];
  const missing = missingScope(principal, events.filter(isEventType));
  if (missing) throw errors.insufficientScope(missing);
  try {
    await checkWebhookUrl(body.url, keys.allowPrivate);
  } catch (err) {
    if (!(err instanceof UnsafeUrlError)) throw err;
    throw errors.invalidBody(`Invalid body: url ${err.message}.`, [{ field: 'url', message: err.message }]);
  }
  const secret = newSecret();
  const row = await repository.insertEndpoint(
    db,
    restaurantId,
    {
      url: body.url,
      events,
      description: body.description ?? '',
      secret_encrypted: encryptSecret(secret, keys.secretKey),
    },
    MAX_ENDPOINTS,
    creatorOf(principal),
  );
  if (row === 'limit') throw errors.webhookEndpointLimit(MAX_ENDPOINTS);
  if (row === 'lost') throw errors.invalidToken();
  return { ...mapEndpoint(row), secret };
}

async function existing(db: Db, restaurantId: number, id: number): Promise<EndpointRow> {
  const row = await repository.findEndpoint(db, restaurantId, id);
  if (!row) throw errors.webhookEndpointNotFound();
  return row;
}

export async function listEndpoints(db: Db, restaurantId: number) {
  return { data: (await repository.listEndpoints(db, restaurantId)).map(mapEndpoint) };
}

export async function getEndpoint(db: Db, restaurantId: number, id: number) {
  return mapEndpoint(await existing(db, restaurantId, id));
}

export async function removeEndpoint(db: Db, restaurantId: number, id: number): Promise<void> {
  if (!(await repository.deleteEndpoint(db, restaurantId, id))) throw errors.webhookEndpointNotFound();
}

/**
 * Enables the endpoint again; `principal` becomes its creator (it vouches for it now), and needs
 * the read scope of each of its event types, as at creation.
 */
export async function enableEndpoint(db: Db, restaurantId: number, id: number, principal: Principal) {
  const { events } = await existing(db, restaurantId, id);
  const missing = missingScope(principal, events.filter(isEventType));
  if (missing) throw errors.insufficientScope(missing);
  const row = await repository.enableEndpoint(db, restaurantId, id, creatorOf(principal));
  if (row === 'lost') throw errors.invalidToken();
  if (!row) throw errors.webhookEndpointNotFound();
  return mapEndpoint(row);
}

export async function rotateEndpointSecret(db: Db, restaurantId: number, id: number, keys: Keys) {
  const secret = newSecret();
  const until = new Date(Date.now() + PREVIOUS_SECRET_HOURS * 3_600_000);
  const row = await repository.rotateSecret(
    db,
    restaurantId,
    id,
    encryptSecret(secret, keys.secretKey),
    until,
    MAX_PREVIOUS_SECRETS,
  );
  if (!row) throw errors.webhookEndpointNotFound();
  return { ...mapEndpoint(row), secret };
}

export async function sendTestEvent(db: Db, restaurantId: number, id: number) {
  const row = await existing(db, restaurantId, id);
  if (row.disabled_at) throw errors.webhookEndpointDisabled();
  const queued = await repository.queuePing(db, restaurantId, id);
  if (!queued) throw errors.webhookEndpointNotFound();
  return { delivery_id: queued.id, event_id: queued.event_id, event_type: 'ping' as const };
}

export async function endpointDeliveries(db: Db, restaurantId: number, id: number, limit = 20) {
  await existing(db, restaurantId, id);
  return { data: (await repository.listDeliveries(db, id, limit)).map(mapDelivery) };
}
