// OAuth clients: confidential ones (a secret, `client_credentials`) and public installable
// applications (no secret, authorization code with PKCE). Secrets are stored as SHA-256 and
// compared in constant time.

import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { unstorable } from '../../db/storable-text.ts';
import { oauthErrors } from '../../http/errors.ts';
import { hashSecret, safeEqual } from '../../lib/secrets.ts';
import { revokeTokensBeyond } from './access-tokens.ts';
import { checkScopes } from './api-keys.ts';
import { basicCredentials, type TokenParams } from './token-request.ts';

type GrantType = 'client_credentials' | 'authorization_code';

export type ClientCredential = {
  id: number;
  clientId: string;
  secretHash: string | null;
  scopes: string[];
  grantTypes: string[];
  redirectUris: string[];
  restaurantIds: number[];
  usable: boolean;
};

type NewOAuthClient = {
  clientId: string;
  clientSecret: string | null;
  name: string;
  scopes: string[];
  grantTypes: GrantType[];
  redirectUris?: string[];
  restaurantIds: number[];
};

export async function findClient(db: Db, by: { clientId: string } | { id: number }) {
  // Text PostgreSQL cannot hold would fail the query (a 500): no client has such an id.
  if ('clientId' in by && unstorable(by.clientId)) return null;
  const query = db
    .selectFrom('oauth_clients as c')
    .select(['c.id', 'c.client_id', 'c.client_secret_hash', 'c.scopes', 'c.grant_types', 'c.redirect_uris'])
    .select(['c.revoked_at'])
    .select(
      sql<number[]>`array(select r.restaurant_id from oauth_client_restaurants r
        where r.oauth_client_id = c.id order by r.restaurant_id)`.as('restaurant_ids'),
    );
  const row = await ('id' in by
    ? query.where('c.id', '=', by.id)
    : query.where('c.client_id', '=', by.clientId)
  ).executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    clientId: row.client_id,
    secretHash: row.client_secret_hash,
    scopes: row.scopes,
    grantTypes: row.grant_types,
    redirectUris: row.redirect_uris,
    restaurantIds: row.restaurant_ids,
    usable: row.revoked_at === null,
  } satisfies ClientCredential;
}

const NO_CLIENT = hashSecret('no client');

/** A confidential client, by client_secret_basic or client_secret_post (never both). */
export async function authenticateClient(
  db: Db,
  request: FastifyRequest,
  params: TokenParams,
): Promise<ClientCredential> {
  const basic = basicCredentials(request);
  if (basic && (params.has('client_id') || params.has('client_secret'))) {
    throw oauthErrors.invalidRequest('Authenticate the client with Basic or with the body, not both.');
  }
  const clientId = basic?.clientId ?? params.get('client_id');
  const secret = basic?.clientSecret ?? params.get('client_secret');
  if (!clientId || !secret) throw oauthErrors.invalidClient('Client authentication is required.', true);
  const client = await findClient(db, { clientId });
  const matches = safeEqual(hashSecret(secret), client?.secretHash ?? NO_CLIENT);
  if (!client?.usable || !client.secretHash || !matches) {
    request.log.info({ client_id: clientId, known: !!client }, 'client authentication failed');
    throw oauthErrors.invalidClient('Client authentication failed.', true);
  }
  return client;
}

/** Stores a client (import, tests); a public client has no secret. */
export async function storeOAuthClient(db: Db, input: NewOAuthClient): Promise<{ id: number }> {
  const scopes = checkScopes(input.scopes);
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto('oauth_clients')
      .values({
        client_id: input.clientId,
        client_secret_hash: input.clientSecret === null ? null : hashSecret(input.clientSecret),
        name: input.name,
        scopes,
        grant_types: input.grantTypes,
        redirect_uris: input.redirectUris ?? [],
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (input.restaurantIds.length) {
      await tx
        .insertInto('oauth_client_restaurants')
        .values(input.restaurantIds.map((restaurant_id) => ({ oauth_client_id: row.id, restaurant_id })))
        .execute();
    }
    return row;
  });
}

/**
 * A client defined again (an import) ends at once what it no longer grants: with another secret,
 * every access token of the client_credentials grant, so whoever held the old secret holds
 * nothing (an installation's tokens came from a person's consent, not from the secret); and each
 * access token holding a scope or a restaurant the client lost.
 */
export async function endWhatClientNoLongerGrants(
  tx: Db,
  oauthClientId: number,
  secretReplaced: boolean,
  grant: { scopes: string[]; restaurantIds: number[] },
  now = new Date(),
) {
  if (secretReplaced) {
    await tx
      .updateTable('access_tokens')
      .set({ revoked_at: now })
      .where('oauth_client_id', '=', oauthClientId)
      .where('family_id', 'is', null)
      .where('revoked_at', 'is', null)
      .execute();
  }
  await revokeTokensBeyond(tx, { oauthClientId }, grant, now);
}
