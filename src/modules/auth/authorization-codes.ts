// Authorization codes of the PKCE flow (RFC 7636, S256 only): `cac_` + 32 random bytes, stored
// as SHA-256, single use, valid 60 seconds, bound to a client, a redirect URI, a restaurant and
// a code challenge. A consumed code remembers the family it started, to revoke it on reuse.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { hashSecret, newSecret, safeEqual } from '../../lib/secrets.ts';

const CODE_PREFIX = 'cac_';
const CODE_TTL_SECONDS = 60;

/** RFC 7636 4.1 (verifier) and 4.2 (an S256 challenge is 43 base64url characters). */
export const VERIFIER_SYNTAX = /^[A-Za-z0-9._~-]{43,128}$/;
export const CHALLENGE_SYNTAX = /^[A-Za-z0-9_-]{43}$/;

type NewCode = {
  oauthClientId: number;
  restaurantId: number;
  scopes: string[];
  redirectUri: string;
  codeChallenge: string;
};

export async function createCode(db: Db, input: NewCode, now: Date): Promise<string> {
  const code = newSecret(CODE_PREFIX);
  await db
    .insertInto('authorization_codes')
    .values({
      code_hash: hashSecret(code),
      oauth_client_id: input.oauthClientId,
      restaurant_id: input.restaurantId,
      scopes: input.scopes,
      redirect_uri: input.redirectUri,
      code_challenge: input.codeChallenge,
      created_at: now,
      expires_at: new Date(now.getTime() + CODE_TTL_SECONDS * 1000),
    })
    .execute();
  return code;
}

/** The code, expired or consumed included; locks its row until commit. */
export async function findCodeForUpdate(db: Db, code: string) {
  return db
    .selectFrom('authorization_codes')
    .select(['id', 'oauth_client_id', 'restaurant_id', 'scopes', 'redirect_uri', 'code_challenge'])
    .select(['expires_at', 'consumed_at', 'family_id'])
    .where('code_hash', '=', hashSecret(code))
    .forUpdate()
    .executeTakeFirst();
}

/** Spends the code; `familyId` is what it started, null when the redemption was refused. */
export async function consumeCode(db: Db, id: number, familyId: number | null, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('authorization_codes')
    .set({ consumed_at: now, family_id: familyId })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function pkceMatches(verifier: string, challenge: string): boolean {
  return safeEqual(createHash('sha256').update(verifier).digest('base64url'), challenge);
}
