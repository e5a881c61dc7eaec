// Opaque access tokens: `cat_` + 32 random bytes, stored as SHA-256. A token is valid while
// unexpired, unrevoked, and neither its API key, its OAuth client nor its refresh-token family
// is revoked, so a revocation takes effect on the next request on every instance.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import { type RestaurantState, stateColumns, stateOf } from '../../db/restaurant-state.ts';
import type { TokenBearer } from '../../http/principal.ts';
import { batchedLookup } from '../../lib/batched-lookup.ts';
import { hashSecret, newSecret } from '../../lib/secrets.ts';

export const ACCESS_TOKEN_PREFIX = 'cat_';

type AccessGrant = {
  apiKeyId?: number | null;
  oauthClientId?: number | null;
  familyId?: string | number | null;
  restaurantIds: number[];
  scopes: string[];
};

type ActiveAccessToken = { id: string } & TokenBearer;

export async function issueAccessToken(
  db: Db,
  grant: AccessGrant,
  ttlSeconds: number,
  now = new Date(),
): Promise<string> {
  const token = newSecret(ACCESS_TOKEN_PREFIX);
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: hashSecret(token),
      api_key_id: grant.apiKeyId ?? null,
      oauth_client_id: grant.oauthClientId ?? null,
      family_id: grant.familyId ?? null,
      restaurant_ids: grant.restaurantIds,
      scopes: grant.scopes,
      created_at: now,
      expires_at: new Date(now.getTime() + ttlSeconds * 1000),
    })
    .execute();
  return token;
}

/**
 * Every authenticated request runs this: a constant statement, prepared once per connection,
 * answering many tokens at once (accessTokenLookup). With each token it reads the state of the
 * restaurant the request is about (the one it names, or the token's only one), so a cached read
 * needs no other round trip. `$1` and `$2`: the token's hash and that restaurant (or null), or
 * arrays of them. A lone token has a statement of its own: PostgreSQL keeps one plan for it, where
 * the arrays' statement is planned on every run (about 0.3 ms; paid once for the whole batch).
 */
function activeTokensSql(many: boolean): string {
  const wanted = many ? 'w.wanted' : '$2::int';
  return `select t.token_hash, ${wanted} as wanted, t.id, t.api_key_id,
  k.name as api_key_name, t.oauth_client_id, c.client_id, t.restaurant_ids, t.scopes,
  r.id as restaurant_id, ${stateColumns('r')}
from access_tokens t
${many ? 'join unnest($1::text[], $2::int[]) as w(hash, wanted) on w.hash = t.token_hash' : ''}
left join api_keys k on k.id = t.api_key_id
left join oauth_clients c on c.id = t.oauth_client_id
left join refresh_token_families f on f.id = t.family_id
left join restaurants r on r.id = any(t.restaurant_ids) and r.id = coalesce(${wanted},
  case when cardinality(t.restaurant_ids) = 1 then t.restaurant_ids[1] end)
where t.token_hash = ${many ? 'any($1::text[])' : '$1'} and t.expires_at > $3 and t.revoked_at is null
  and (t.api_key_id is null or (k.revoked_at is null and (k.expires_at is null or k.expires_at > $3)))
  and (t.oauth_client_id is null or c.revoked_at is null)
  and (t.family_id is null or f.revoked_at is null)`;
}

const oneToken = prepared<ActiveTokenRow>(activeTokensSql(false));
const manyTokens = prepared<ActiveTokenRow>(activeTokensSql(true));

type ActiveTokenRow = {
  token_hash: string;
  wanted: number | null;
  id: string | number;
  api_key_id: number | null;
  api_key_name: string | null;
  oauth_client_id: number | null;
  client_id: string | null;
  restaurant_ids: number[];
  scopes: string[];
  restaurant_id: number | null;
} & { [K in keyof RestaurantState]: RestaurantState[K] | null };

/** An active token, and the state of the restaurant asked for with it (when it may use it). */
export type TokenCheck = {
  token: ActiveAccessToken;
  restaurant?: { id: number; state: RestaurantState };
};

type Wanted = { hash: string; restaurantId: number | null };
const keyOf = (hash: string, restaurantId: number | null) => `${hash} ${restaurantId ?? ''}`;

async function checkTokens(db: Db, wanted: Wanted[], now: Date): Promise<Map<string, TokenCheck>> {
  const { rows } =
    wanted.length === 1
      ? await oneToken(db, [wanted[0].hash, wanted[0].restaurantId, now])
      : await manyTokens(db, [wanted.map((w) => w.hash), wanted.map((w) => w.restaurantId), now]);
  const found = new Map<string, TokenCheck>();
  for (const row of rows) {
    const token = {
      id: String(row.id),
      apiKeyId: row.api_key_id,
      apiKeyName: row.api_key_name,
      oauthClientId: row.oauth_client_id,
      clientId: row.client_id,
      restaurantIds: row.restaurant_ids,
      scopes: row.scopes,
    };
    const restaurant =
      row.restaurant_id === null
        ? undefined
        : { id: row.restaurant_id, state: stateOf(row as RestaurantState) };
    found.set(keyOf(row.token_hash, row.wanted), { token, restaurant } as TokenCheck);
  }
  return found;
}

/** `restaurantId`: the restaurant the request names, if any. */
export type AccessTokenLookup = (token: string, restaurantId: number | null) => Promise<TokenCheck | null>;

/**
 * The lookup of every authenticated request: the tokens of requests arriving together are checked
 * in one statement (batched-lookup.ts), against the clock when it is sent.
 */
export function accessTokenLookup(db: Db): AccessTokenLookup {
  const lookup = batchedLookup((keys: string[]) => {
    const wanted = keys.map((key) => {
      const space = key.indexOf(' ');
      const restaurant = key.slice(space + 1);
      return { hash: key.slice(0, space), restaurantId: restaurant ? Number(restaurant) : null };
    });
    return checkTokens(db, wanted, new Date());
  });
  return async (token, restaurantId) => (await lookup(keyOf(hashSecret(token), restaurantId))) ?? null;
}

/**
 * Invalidates every live access token of an API key or OAuth client at once; with `restaurantIds`,
 * only the client's tokens for any of those restaurants (an application's installation at one
 * restaurant is a credential of its own: another restaurant's tokens are not its to end).
 */
export async function revokeAccessTokens(
  db: Db,
  owner: { apiKeyId?: number | null; oauthClientId?: number | null; restaurantIds?: number[] },
  now = new Date(),
) {
  let query = db.updateTable('access_tokens').set({ revoked_at: now }).where('revoked_at', 'is', null);
  if (owner.apiKeyId) query = query.where('api_key_id', '=', owner.apiKeyId);
  else if (owner.oauthClientId) {
    query = query.where('oauth_client_id', '=', owner.oauthClientId);
    const { restaurantIds } = owner;
    if (restaurantIds) {
      if (!restaurantIds.length) return;
      query = query.where(sql<boolean>`restaurant_ids && array[${sql.join(restaurantIds)}]::integer[]`);
    }
  } else return;
  await query.execute();
}

/**
 * Ends each live access token of the key or client that holds a scope or a restaurant the
 * credential no longer grants (it was defined again, by an import); a refresh narrows the rest
 * (grants/refresh-token.ts).
 */
export async function revokeTokensBeyond(
  db: Db,
  owner: { apiKeyId: number } | { oauthClientId: number },
  grant: { scopes: string[]; restaurantIds: number[] },
  now: Date,
) {
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where(
      'apiKeyId' in owner ? 'api_key_id' : 'oauth_client_id',
      '=',
      'apiKeyId' in owner ? owner.apiKeyId : owner.oauthClientId,
    )
    .where('revoked_at', 'is', null)
    .where(
      sql<boolean>`not (scopes <@ array[${sql.join(grant.scopes)}]::text[]
        and restaurant_ids <@ array[${sql.join(grant.restaurantIds)}]::integer[])`,
    )
    .execute();
}
