// Credentials of a run: the keys and tokens of the previous run are dropped, then each restaurant gets an
// API key with every data scope and an access token valid for the whole run. Also the webhook
// endpoint the event benches subscribe for a restaurant.
import { sql } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { type Principal, SCOPES } from '../src/http/principal.ts';
import { issueAccessToken } from '../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../src/modules/auth/api-keys.ts';
import type { EventType } from '../src/modules/events/event-types.ts';
import { createEndpoint } from '../src/modules/webhooks/endpoint-service.ts';
import { BENCH_SECRETS } from './server-env.ts';

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

/** A webhook endpoint of the restaurant at `url` (any address: the receiver listens on 127.0.0.1). */
export async function benchEndpoint(
  db: Db,
  restaurantId: number,
  url: string,
  events: EventType[],
): Promise<void> {
  const session: Principal = {
    kind: 'restaurant_session',
    sessionId: 'bench',
    restaurantIds: [restaurantId],
    scopes: [],
  };
  const keys = { secretKey: BENCH_SECRETS.fiscalTokenKey, allowPrivate: true };
  await createEndpoint(db, restaurantId, session, { url, events }, keys);
}
