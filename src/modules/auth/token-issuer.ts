// The token response of RFC 6749 5.1 (contract 2.5), issued inside the caller's transaction.
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { issueAccessToken } from './access-tokens.ts';
import { addRefreshToken, createFamily, type Family } from './refresh-tokens.ts';

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
};

type TokenGrant = Omit<Family, 'id' | 'absoluteExpiresAt'>;

async function accessToken(db: Db, config: Config, grant: TokenGrant, familyId: number | null, now: Date) {
  const token = await issueAccessToken(db, { ...grant, familyId }, config.accessTokenTtlSeconds, now);
  return {
    access_token: token,
    token_type: 'Bearer' as const,
    expires_in: config.accessTokenTtlSeconds,
    scope: grant.scopes.join(' '),
  };
}

/** An access token alone (client_credentials: no refresh token, RFC 6749 4.4.3). */
export function issueAccessOnly(db: Db, config: Config, grant: TokenGrant, now: Date) {
  return accessToken(db, config, grant, null, now);
}

/** An access token and the family's next refresh token (a refresh, with the family's grant). */
export async function issueFamilyTokens(db: Db, config: Config, family: Family, now: Date) {
  const response: TokenResponse = await accessToken(db, config, family, family.id, now);
  response.refresh_token = await addRefreshToken(db, family, config.refreshIdleTtlSeconds, now);
  return response;
}

/** A first exchange: a new refresh-token family and its first pair. */
export async function startFamily(db: Db, config: Config, grant: TokenGrant, now: Date) {
  const family = await createFamily(db, grant, config.refreshAbsoluteTtlSeconds, now);
  return { family, response: await issueFamilyTokens(db, config, family, now) };
}
