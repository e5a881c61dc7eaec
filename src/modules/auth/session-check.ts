// The check of every request made with a restaurant session: whether its console sign-in was
// ended (signed out, or replaced by a password change: refused at once), read together with the
// state of the session's restaurant, as the access-token check reads it with the token
// (access-tokens.ts). The sessions of requests arriving together share one statement
// (src/lib/batched-lookup.ts), sent after they arrived. Sessions minted by `comanda session
// create` have no sign-in row and are never ended.
import type { Db } from '../../db/database.ts';
import { prepared } from '../../db/prepared.ts';
import { type RestaurantState, stateColumns, stateOf } from '../../db/restaurant-state.ts';
import { batchedPerHandle } from '../../lib/batched-lookup.ts';

type SessionCheck = {
  ended: boolean;
  /** Undefined when the restaurant is gone. */
  restaurant?: { id: number; state: RestaurantState };
};

type Row = RestaurantState & { jti: string; restaurant_id: number; ended: boolean; found: boolean };

const checkSessions = prepared<Row>(
  `select k.jti::text as jti, k.restaurant_id, s.id is not null as ended, r.id is not null as found,
     ${stateColumns('r')}
   from unnest($1::uuid[], $2::int[]) as k (jti, restaurant_id)
   left join console_sessions s on s.id = k.jti and s.ended_at is not null
   left join restaurants r on r.id = k.restaurant_id`,
);

const keyOf = (jti: string, restaurantId: number) => `${jti} ${restaurantId}`;

const lookup = batchedPerHandle(async (db: Db, keys: string[]) => {
  const wanted = keys.map((key) => key.split(' '));
  const { rows } = await checkSessions(db, [wanted.map((w) => w[0]), wanted.map((w) => Number(w[1]))]);
  const found = new Map<string, SessionCheck>();
  for (const row of rows) {
    const { jti, restaurant_id: id, ended } = row;
    found.set(keyOf(jti, id), { ended, restaurant: row.found ? { id, state: stateOf(row) } : undefined });
  }
  return found;
});

/**
 * `jti` must be a UUID (verifySession makes sure). The statement answers every key it is asked;
 * should one be missing, the session counts as ended: a check that fails refuses.
 */
export async function checkSession(db: Db, jti: string, restaurantId: number): Promise<SessionCheck> {
  return (await lookup(db, keyOf(jti, restaurantId))) ?? { ended: true };
}
