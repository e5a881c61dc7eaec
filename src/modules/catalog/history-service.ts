// GET /v1/products/{productId}/history: the change log the catalog writes record, newest first,
// by pages of an opaque cursor. The stored actor is mapped to a credential that names the API
// key or OAuth client and never carries a secret (a session is only "a restaurant session").
import type { Db } from '../../db/database.ts';
import { errors } from '../../http/errors.ts';
import type { HistoryQueryInput } from './change-review-schemas.ts';
import { type ChangeRow, listChanges, liveProductExists } from './history-repository.ts';

const DEFAULT_LIMIT = 50;

/** The cursor names the product and the last change shown: `base64url("<productId>.<changeId>")`. */
const encodeCursor = (productId: number, changeId: number) =>
  Buffer.from(`${productId}.${changeId}`).toString('base64url');

function decodeCursor(productId: number, cursor: string): number {
  const match = /^[A-Za-z0-9_-]+$/.test(cursor)
    ? /^(\d{1,10})\.([1-9]\d{0,14})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
    : null;
  if (!match || Number(match[1]) !== productId) {
    throw errors.invalidQuery('Invalid query: cursor is not a next_cursor of this product history.', [
      { field: 'cursor', message: 'is not a next_cursor of this product history' },
    ]);
  }
  return Number(match[2]);
}

function credentialOf(actor: ChangeRow['actor']) {
  switch (actor.kind) {
    case 'api_key':
      return { kind: actor.kind, api_key_id: actor.api_key_id, api_key_name: actor.api_key_name };
    case 'oauth_client':
      return { kind: actor.kind, client_id: actor.client_id };
    case 'import':
      return { kind: actor.kind };
    default:
      return { kind: 'restaurant_session' as const };
  }
}

function mapChange(row: ChangeRow) {
  return {
    at: row.created_at.toISOString(),
    credential: credentialOf(row.actor),
    operation: row.operation,
    changes: row.changes,
  };
}

export async function productHistory(
  db: Db,
  restaurantId: number,
  productId: number,
  query: HistoryQueryInput,
) {
  const beforeId = query.cursor === undefined ? null : decodeCursor(productId, query.cursor);
  if (!(await liveProductExists(db, restaurantId, productId))) throw errors.productNotFound();
  const limit = query.limit ?? DEFAULT_LIMIT;
  // One row more than the page tells whether an older page exists, without a count.
  const rows = await listChanges(db, restaurantId, productId, beforeId, limit + 1);
  const page = rows.slice(0, limit);
  const more = rows.length > limit;
  return {
    items: page.map(mapChange),
    next_cursor: more ? encodeCursor(productId, page[page.length - 1].id) : null,
  };
}
