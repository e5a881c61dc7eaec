// Credentials of a run: the keys and tokens of the previous run are dropped, then each restaurant gets an
// API key with every data scope and an access token valid for the whole run.
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { SCOPES } from '../src/http/principal.ts';
import { issueAccessToken } from '../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../src/modules/auth/api-keys.ts';

export type Credential = { apiKey: string; authorization: string };

/** Before seeding: a data set's restaurant is deleted and seeded again only once no key points at it. */
export async function dropCredentials(db: Db): Promise<void> {
  await sql`truncate api_keys, access_tokens, refresh_tokens, refresh_token_families, api_key_restaurants cascade`.execute(
    db,
  );
}

export async function issueCredentials(db: Db, restaurantIds: number[]): Promise<Map<number, Credential>> {
  const credentials = new Map<number, Credential>();
  for (const restaurantId of restaurantIds) {
    const grant = { restaurantIds: [restaurantId], scopes: SCOPES };
    const key = await storeApiKey(db, { name: `bench ${restaurantId}`, ...grant });
    const token = await issueAccessToken(db, { apiKeyId: key.id, ...grant }, 3600);
    credentials.set(restaurantId, { apiKey: key.api_key, authorization: `Bearer ${token}` });
  }
  return credentials;
}
