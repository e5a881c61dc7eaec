// grant_type=authorization_code with PKCE (RFC 6749 4.1.3, RFC 7636 4.6) for public
// applications: the code, its redirect URI, the client_id and the verifier. A code is single
// use (OAuth 2.1 4.1.3): any redemption spends it, a refused one too, and presenting a consumed
// one revokes the family it started (RFC 6749 4.1.2).
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { oauthErrors } from '../../../http/errors.ts';
import { consumeCode, findCodeForUpdate, pkceMatches, VERIFIER_SYNTAX } from '../authorization-codes.ts';
import { type ClientCredential, findClient } from '../oauth-clients.ts';
import { revokeFamily } from '../refresh-tokens.ts';
import { startFamily, type TokenResponse } from '../token-issuer.ts';
import type { Grant, GrantInput, Refusal } from './grant.ts';

type Exchange = { code: string; redirectUri: string; verifier: string };

async function redeem(
  db: Db,
  config: Config,
  client: ClientCredential,
  input: Exchange,
  now: Date,
  prove: GrantInput['prove'],
): Promise<TokenResponse | Refusal> {
  const found = await findCodeForUpdate(db, input.code);
  if (!found) return { refused: 'unknown code' };
  // A replayed code means it leaked, whatever its age: checked before expiry.
  if (found.consumed_at) {
    if (found.family_id) await revokeFamily(db, found.family_id, now);
    return { refused: 'reuse of a consumed code: what it issued is revoked' };
  }
  const refusal = refusalOf(found, client, input, now);
  if (refusal) {
    await consumeCode(db, found.id, null, now);
    return refusal;
  }
  const grant = { apiKeyId: null, oauthClientId: client.id, restaurantIds: [found.restaurant_id] };
  // Over the budget, the 429 rolls back and the code stays redeemable until it expires.
  await prove(grant);
  const scopes = found.scopes.filter((scope) => client.scopes.includes(scope));
  const { family, response } = await startFamily(db, config, { ...grant, scopes }, now);
  if (!(await consumeCode(db, found.id, family.id, now))) throw oauthErrors.invalidGrant();
  return response;
}

type FoundCode = NonNullable<Awaited<ReturnType<typeof findCodeForUpdate>>>;

function refusalOf(found: FoundCode, client: ClientCredential, input: Exchange, now: Date): Refusal | null {
  if (found.oauth_client_id !== client.id) return { refused: 'code of another client' };
  if (found.expires_at <= now) return { refused: 'code expired' };
  if (found.redirect_uri !== input.redirectUri) return { refused: 'redirect_uri differs' };
  if (!pkceMatches(input.verifier, found.code_challenge)) return { refused: 'code_verifier does not match' };
  const scopes = found.scopes.filter((scope) => client.scopes.includes(scope));
  if (!client.restaurantIds.includes(found.restaurant_id) || !scopes.length) {
    return { refused: 'client no longer installed for the restaurant' };
  }
  return null;
}

function required(params: Map<string, string>, name: string): string {
  const value = params.get(name);
  if (!value) throw oauthErrors.invalidRequest(`The ${name} parameter is required.`);
  return value;
}

export const authorizationCodeGrant: Grant = {
  grantType: 'authorization_code',
  parameters: ['code', 'redirect_uri', 'client_id', 'code_verifier'],
  async handle({ ctx, params, request, now, prove }) {
    const input = {
      code: required(params, 'code'),
      redirectUri: required(params, 'redirect_uri'),
      verifier: required(params, 'code_verifier'),
    };
    const clientId = required(params, 'client_id');
    if (!VERIFIER_SYNTAX.test(input.verifier)) {
      throw oauthErrors.invalidRequest(
        'code_verifier must be 43 to 128 unreserved characters (RFC 7636 4.1).',
      );
    }
    const client = await findClient(ctx.db, { clientId });
    if (!client?.usable) throw oauthErrors.invalidClient('Unknown or revoked client_id.');
    if (client.secretHash || !client.grantTypes.includes('authorization_code')) {
      throw oauthErrors.unauthorizedClient('This client may not use the authorization_code grant.');
    }
    const outcome = await ctx.db
      .transaction()
      .execute((tx) => redeem(tx, ctx.config, client, input, now, prove));
    if ('refused' in outcome) {
      request.log.info({ reason: outcome.refused, client_id: clientId }, 'authorization code refused');
      throw oauthErrors.invalidGrant();
    }
    return outcome;
  },
};
