// API keys: made once, shown once, stored as SHA-256. `ck_live_` or `ck_test_` prefix; the
// test prefix is not a sandbox, it reads and changes the same real data (contract 1).
import type { Db } from '../../db/database.ts';
import { SCOPES, type Scope } from '../../http/principal.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';
import { revokeAccessTokens, revokeTokensBeyond } from './access-tokens.ts';
import { revokeFamily } from './refresh-tokens.ts';

export type Environment = 'live' | 'test';

export const API_KEY_PREFIXES: Record<Environment, string> = { live: 'ck_live_', test: 'ck_test_' };

type NewApiKey = {
  name?: string;
  restaurantIds: number[];
  scopes: string[];
  environment?: Environment;
  expiresAt?: Date | null;
};

export function environmentOf(key: string): Environment | null {
  if (key.startsWith(API_KEY_PREFIXES.live)) return 'live';
  if (key.startsWith(API_KEY_PREFIXES.test)) return 'test';
  return null;
}

export function checkScopes(scopes: string[]): Scope[] {
  const unknown = scopes.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length) throw new Error(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  if (!scopes.length) throw new Error('at least one scope is required');
  return [...new Set(scopes)] as Scope[];
}

/**
 * Stores a key given in plain text (import) or made here; returns the plain key once. `db` may be
 * a transaction the caller owns (the importer writes keys inside its own); otherwise one is opened.
 */
export async function storeApiKey(
  db: Db,
  input: NewApiKey & { key?: string; id?: number; revokedAt?: Date | null },
) {
  const environment = input.environment ?? (input.key ? environmentOf(input.key) : null) ?? 'live';
  const key = input.key ?? newSecret(API_KEY_PREFIXES[environment]);
  const scopes = checkScopes(input.scopes);
  if (!input.restaurantIds.length) throw new Error('at least one restaurant is required');
  const write = async (tx: Db) => {
    const before =
      input.id === undefined
        ? undefined
        : await tx
            .selectFrom('api_keys')
            .select('key_hash')
            .where('id', '=', input.id)
            .forUpdate()
            .executeTakeFirst();
    const values = {
      name: input.name ?? 'API key',
      prefix: key.slice(0, API_KEY_PREFIXES[environment].length + 4),
      key_hash: hashSecret(key),
      environment,
      scopes,
      expires_at: input.expiresAt ?? null,
      revoked_at: input.revokedAt ?? null,
    };
    const inserted = await tx
      .insertInto('api_keys')
      .values(input.id ? { id: input.id, ...values } : values)
      .onConflict((oc) => oc.column('id').doUpdateSet(values))
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx.deleteFrom('api_key_restaurants').where('api_key_id', '=', inserted.id).execute();
    await tx
      .insertInto('api_key_restaurants')
      .values(input.restaurantIds.map((restaurant_id) => ({ api_key_id: inserted.id, restaurant_id })))
      .execute();
    if (before) {
      const grant = { scopes, restaurantIds: input.restaurantIds };
      const endsAll = before.key_hash !== values.key_hash || values.revoked_at !== null;
      await endWhatIsNoLongerGranted(tx, inserted.id, endsAll, grant);
    }
    return inserted;
  };
  const row = db.isTransaction ? await write(db) : await db.transaction().execute(write);
  return { id: row.id, api_key: key, restaurant_ids: input.restaurantIds, scopes, environment };
}

/**
 * A key defined again (an import) ends at once what it no longer grants. With another secret, or
 * revoked: every access token and refresh family it had, so whoever held the old secret holds
 * nothing, and defining the key again unrevoked brings none of them back. Otherwise: each access
 * token holding a scope or a restaurant the key lost (a refresh narrows the rest,
 * grants/refresh-token.ts).
 */
async function endWhatIsNoLongerGranted(
  tx: Db,
  apiKeyId: number,
  endsAll: boolean,
  grant: { scopes: string[]; restaurantIds: number[] },
) {
  const now = new Date();
  if (endsAll) {
    await revokeFamily(tx, { apiKeyId }, now);
    return revokeAccessTokens(tx, { apiKeyId }, now);
  }
  await revokeTokensBeyond(tx, { apiKeyId }, grant, now);
}

export async function listApiKeys(db: Db) {
  const rows = await db
    .selectFrom('api_keys as k')
    .select(['k.id', 'k.name', 'k.prefix', 'k.environment', 'k.scopes', 'k.created_at', 'k.last_used_at'])
    .select(['k.expires_at', 'k.revoked_at'])
    .select((eb) =>
      eb
        .selectFrom('api_key_restaurants as r')
        .whereRef('r.api_key_id', '=', 'k.id')
        .select((e) => e.fn.agg<number[]>('array_agg', ['r.restaurant_id']).as('ids'))
        .as('restaurant_ids'),
    )
    .orderBy('k.id')
    .execute();
  return rows.map((r) => ({ ...r, restaurant_ids: r.restaurant_ids ?? [] }));
}

/**
 * Revokes a key and, at once, every access token and refresh family issued for it (so none comes
 * back should an import define the key again).
 */
export async function revokeApiKey(db: Db, id: number, now = new Date()): Promise<boolean> {
  return db.transaction().execute(async (tx) => {
    const updated = await tx
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    await revokeFamily(tx, { apiKeyId: id }, now);
    await revokeAccessTokens(tx, { apiKeyId: id }, now);
    return Number(updated.numUpdatedRows) > 0;
  });
}
