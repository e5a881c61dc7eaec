// grant_type=refresh_token (RFC 6749 6, contract 3 and 5.6): rotation with reuse detection.
// In one transaction that locks the token row: find (ignoring expiry) -> not found, revoked,
// unconsumed and expired, client mismatch -> already consumed (expired or not): revoke the
// family and every access token of its key, or of its application at the family's restaurant ->
// consume and issue the successor. Of N concurrent refreshes of one token
// exactly one wins; the others arrive after its commit, see it consumed and count as reuse.
import type { Config } from '../../../config.ts';
import type { Db } from '../../../db/database.ts';
import { oauthErrors } from '../../../http/errors.ts';
import { revokeAccessTokens } from '../access-tokens.ts';
import { findApiKey } from '../api-key-lookup.ts';
import { findClient } from '../oauth-clients.ts';
import {
  consumeRefreshToken,
  type Family,
  findRefreshTokenForUpdate,
  revokeFamily,
} from '../refresh-tokens.ts';
import { issueFamilyTokens, type TokenResponse } from '../token-issuer.ts';
import type { Grant, GrantInput, Refusal } from './grant.ts';

/** The family's grant as its key or client allows it now: a narrowed key never regains scopes. */
async function currentGrant(db: Db, family: Family, now: Date) {
  const owner = family.apiKeyId
    ? await findApiKey(db, { id: family.apiKeyId }, now)
    : await findClient(db, { id: family.oauthClientId! });
  if (!owner?.usable) return null;
  const restaurantIds = family.restaurantIds.filter((id) => owner.restaurantIds.includes(id));
  const scopes = family.scopes.filter((scope) => owner.scopes.includes(scope));
  return restaurantIds.length && scopes.length ? { restaurantIds, scopes } : null;
}

/** Tokens of a public application need its client_id (RFC 6749 6); API key tokens take none. */
function clientMismatch(familyClientId: string | null, presented: string | undefined): boolean {
  if (familyClientId === null) {
    if (presented)
      throw oauthErrors.invalidRequest('client_id is not accepted when refreshing an API key token.');
    return false;
  }
  if (!presented)
    throw oauthErrors.invalidRequest('client_id is required to refresh this application token.');
  return presented !== familyClientId;
}

async function rotate(
  db: Db,
  config: Config,
  presented: string,
  clientId: string | undefined,
  now: Date,
  prove: GrantInput['prove'],
): Promise<TokenResponse | Refusal> {
  const found = await findRefreshTokenForUpdate(db, presented);
  if (!found) return { refused: 'unknown refresh token' };
  const { family } = found;
  const current = await currentGrant(db, family, now);
  if (found.familyRevokedAt || !current) return { refused: 'family, key or client revoked' };
  // A replayed token means it leaked, whatever its age: a consumed one goes on to reuse detection.
  const expired = found.expiresAt <= now || family.absoluteExpiresAt <= now;
  if (expired && !found.consumedAt) return { refused: 'refresh token expired' };
  if (clientMismatch(found.clientId, clientId)) return { refused: 'issued to another client' };
  if (found.consumedAt || !(await consumeRefreshToken(db, found.id, now))) {
    await revokeFamily(db, family.id, now);
    // An API key's tokens everywhere; an application's only at the family's restaurant: its
    // installations at other restaurants are other tenants, whose tokens this leak did not touch.
    await revokeAccessTokens(db, family, now);
    return { refused: `reuse of a consumed refresh token: family ${family.id} revoked` };
  }
  // Over the budget, the 429 rolls the consumption back: the token stays usable.
  await prove({ ...family, ...current });
  return issueFamilyTokens(db, config, { ...family, ...current }, now);
}

export const refreshTokenGrant: Grant = {
  grantType: 'refresh_token',
  parameters: ['refresh_token', 'client_id'],
  async handle({ ctx, params, request, now, prove }) {
    const presented = params.get('refresh_token');
    if (!presented) throw oauthErrors.invalidRequest('The refresh_token parameter is required.');
    const outcome = await ctx.db
      .transaction()
      .execute((tx) => rotate(tx, ctx.config, presented, params.get('client_id'), now, prove));
    if ('refused' in outcome) {
      request.log.info({ reason: outcome.refused }, 'refresh refused');
      throw oauthErrors.invalidGrant();
    }
    return outcome;
  },
};
