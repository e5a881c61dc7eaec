// API keys (given in plain text, stored as SHA-256 like keys made by `api-key create`) and OAuth
// clients (secrets stored as SHA-256). For tests and for migrating existing integrations.
import { sql } from 'kysely';
import { SCOPES } from '../http/principal.ts';
import { hashSecret } from '../lib/secrets.ts';
import { API_KEY_PREFIXES, storeApiKey } from '../modules/auth/api-keys.ts';
import { endWhatClientNoLongerGrants } from '../modules/auth/oauth-clients.ts';
import { name } from './catalog.ts';
import type { Collection, Ref, Row } from './collection.ts';
import { arrayOf, type Check, id, instant, oneOf, text } from './fields.ts';
import { FieldProblem } from './issues.ts';
import { nullable, optional, required } from './record.ts';
import { deleteWhereIn, insertRows, upsertRows } from './write.ts';

const restaurantIds = required(arrayOf(id, { unique: true, nonEmpty: true }));
const scopes = required(arrayOf(oneOf(SCOPES), { unique: true, nonEmpty: true }));
const prefixes = Object.values(API_KEY_PREFIXES);

const apiKey: Check<string> = (value) => {
  const key = text({ nonEmpty: true })(value);
  if (!prefixes.some((p) => key.startsWith(p) && key.length > p.length)) {
    throw new FieldProblem(`must start with ${prefixes.join(' or ')}`);
  }
  return key;
};

const redirectUri: Check<string> = (value) => {
  const uri = text({ nonEmpty: true })(value);
  if (!URL.canParse(uri) || new URL(uri).hash)
    throw new FieldProblem('must be an absolute URL without a fragment');
  return uri;
};

const restaurantRefs = (row: Row): Ref[] =>
  row.restaurant_ids.map((restaurantId: number, i: number) => ({
    path: `.restaurant_ids[${i}]`,
    table: 'restaurants',
    id: restaurantId,
  }));

export const apiKeys: Collection = {
  name: 'api_keys',
  spec: {
    id: required(id),
    key: required(apiKey),
    name: optional(text({ trim: true, nonEmpty: true, max: 255 }), 'API key'),
    restaurant_ids: restaurantIds,
    scopes,
    expires_at: nullable(instant),
    revoked_at: nullable(instant),
  },
  ids: (row) => [{ path: '.id', table: 'api_keys', id: row.id }],
  refs: restaurantRefs,
  size: () => 1,
  verify: async (tx, records, issues) => {
    const owners = new Map<string, number | string>();
    const hashes = records.map((r) => hashSecret(r.row.key));
    const stored = await tx
      .selectFrom('api_keys')
      .select(['id', 'key_hash'])
      .where('key_hash', '=', sql<string>`any(${hashes})`)
      .execute();
    for (const row of stored) owners.set(row.key_hash, row.id);
    records.forEach(({ at, row }, i) => {
      const owner = owners.get(hashes[i]);
      if (owner !== undefined && owner !== row.id) {
        const where = typeof owner === 'number' ? `API key ${owner} in the database` : owner;
        issues.add(`${at}.key`, `the same key is already given to ${where}`);
      }
      owners.set(hashes[i], owner ?? at);
    });
  },
  write: async (ctx, records) => {
    // In id order: two imports lock the keys they both change in one order.
    for (const { row } of records.toSorted((a, b) => a.row.id - b.row.id)) {
      await storeApiKey(ctx.tx, {
        id: row.id,
        key: row.key,
        name: row.name,
        restaurantIds: row.restaurant_ids,
        scopes: row.scopes,
        expiresAt: row.expires_at && new Date(row.expires_at),
        revokedAt: row.revoked_at && new Date(row.revoked_at),
      });
      ctx.advance(1);
    }
    return { api_keys: records.length };
  },
};

export const oauthClients: Collection = {
  name: 'oauth_clients',
  spec: {
    client_id: required(text({ nonEmpty: true, max: 255 })),
    client_secret: nullable(text({ nonEmpty: true })),
    name,
    restaurant_ids: restaurantIds,
    scopes,
    redirect_uris: optional(arrayOf(redirectUri, { unique: true }), []),
    grant_types: required(
      arrayOf(oneOf(['client_credentials', 'authorization_code']), { unique: true, nonEmpty: true }),
    ),
  },
  ids: (row) => [{ path: '.client_id', table: 'oauth_clients', id: row.client_id }],
  refs: restaurantRefs,
  check: (row, at, issues) => {
    if (row.grant_types.includes('client_credentials') && row.client_secret === null) {
      issues.add(`${at}.client_secret`, 'a client_credentials client must have a secret');
    }
    if (row.grant_types.includes('authorization_code') && row.redirect_uris.length === 0) {
      issues.add(`${at}.redirect_uris`, 'an authorization_code client needs at least one redirect URI');
    }
  },
  size: () => 1,
  write: async (ctx, records) => {
    const rows = records.map(
      ({ row: { client_secret, restaurant_ids, ...client } }): Row => ({
        ...client,
        client_secret_hash: client_secret === null ? null : hashSecret(client_secret),
      }),
    );
    const before = await ctx.tx
      .selectFrom('oauth_clients')
      .select(['id', 'client_id', 'client_secret_hash'])
      .where('client_id', '=', sql<string>`any(${rows.map((r) => r.client_id)})`)
      .execute();
    await upsertRows(ctx, 'oauth_clients', rows, 'client_id');
    const stored = await ctx.tx
      .selectFrom('oauth_clients')
      .select(['id', 'client_id'])
      .where('client_id', '=', sql<string>`any(${rows.map((r) => r.client_id)})`)
      .execute();
    const idOf = new Map(stored.map((c) => [c.client_id, c.id]));
    await deleteWhereIn(
      ctx,
      'oauth_client_restaurants',
      'oauth_client_id',
      stored.map((c) => c.id),
    );
    const links = records.flatMap(({ row }) =>
      row.restaurant_ids.map((restaurantId: number) => ({
        oauth_client_id: idOf.get(row.client_id),
        restaurant_id: restaurantId,
      })),
    );
    await insertRows(ctx, 'oauth_client_restaurants', links);
    // A client defined again ends at once the tokens of what it no longer grants.
    const defined = new Map(
      records.map(({ row }, i) => [row.client_id, { row, hash: rows[i].client_secret_hash }]),
    );
    for (const old of before) {
      const { row, hash } = defined.get(old.client_id) as { row: Row; hash: string | null };
      const grant = { scopes: row.scopes, restaurantIds: row.restaurant_ids };
      await endWhatClientNoLongerGrants(ctx.tx, old.id, old.client_secret_hash !== hash, grant);
    }
    return { oauth_clients: rows.length };
  },
};
