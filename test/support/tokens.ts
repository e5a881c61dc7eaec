// Credentials for tests: an API key row and an access token for it, minted directly.
import type { Db } from '../../src/db/database.ts';
import { issueAccessToken } from '../../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { signSession } from '../../src/modules/auth/session-token.ts';

export async function bearerFor(
  db: Db,
  restaurantIds: number[],
  scopes: string[],
  name = 'test key',
): Promise<{ authorization: string; apiKeyId: number }> {
  const key = await storeApiKey(db, { name, restaurantIds, scopes, environment: 'test' });
  const token = await issueAccessToken(db, { apiKeyId: key.id, restaurantIds, scopes }, 900);
  return { authorization: `Bearer ${token}`, apiKeyId: key.id };
}

export function sessionFor(
  restaurantId: number,
  secret: string,
  ttlSeconds = 3600,
): { authorization: string } {
  return { authorization: `Bearer ${signSession(restaurantId, ttlSeconds, secret)}` };
}
