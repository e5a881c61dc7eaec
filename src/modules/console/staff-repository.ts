// SQL of staff accounts, their restaurants and console sign-ins.

import type { Db } from '../../db/database.ts';
import { unstorable } from '../../db/storable-text.ts';

export type RestaurantRef = { id: number; name: string };

type NewStaffRow = {
  email: string;
  passwordHash: string;
  mustChange: boolean;
  restaurantIds: number[];
};

export async function insertStaffUser(db: Db, input: NewStaffRow): Promise<number> {
  const run = async (tx: Db) => {
    const { id } = await tx
      .insertInto('staff_users')
      .values({
        email: input.email,
        password_hash: input.passwordHash,
        must_change_password: input.mustChange,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .insertInto('staff_user_restaurants')
      .values(input.restaurantIds.map((restaurant_id) => ({ staff_user_id: id, restaurant_id })))
      .execute();
    return id;
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

export async function findStaffByEmail(db: Db, email: string) {
  // Text PostgreSQL cannot hold would fail the query (a 500): no account has such an email.
  if (unstorable(email)) return undefined;
  return db
    .selectFrom('staff_users')
    .select(['id', 'password_hash', 'must_change_password', 'disabled_at'])
    .where('email', '=', email)
    .executeTakeFirst();
}

export function findPasswordHash(db: Db, staffUserId: number) {
  return db
    .selectFrom('staff_users')
    .select(['password_hash'])
    .where('id', '=', staffUserId)
    .executeTakeFirst();
}

export async function updatePassword(db: Db, staffUserId: number, passwordHash: string): Promise<void> {
  await db
    .updateTable('staff_users')
    .set({ password_hash: passwordHash, must_change_password: false })
    .where('id', '=', staffUserId)
    .execute();
}

export function restaurantsOf(db: Db, staffUserId: number): Promise<RestaurantRef[]> {
  return db
    .selectFrom('staff_user_restaurants as s')
    .innerJoin('restaurants as r', 'r.id', 's.restaurant_id')
    .select(['r.id', 'r.name'])
    .where('s.staff_user_id', '=', staffUserId)
    .orderBy('r.name')
    .orderBy('r.id')
    .execute();
}

export function existingRestaurants(db: Db, ids: number[]): Promise<RestaurantRef[]> {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('restaurants').select(['id', 'name']).where('id', 'in', ids).execute();
}

type SessionRow = {
  id: string;
  staffUserId: number;
  restaurantId: number;
  createdAt: Date;
  expiresAt: Date;
};

export async function insertConsoleSession(db: Db, row: SessionRow): Promise<void> {
  // The member's expired sessions are of no further use (their tokens have expired too): dropped
  // here, so the table holds only the sign-ins of one session lifetime per member. An ended one is
  // kept until it expires: its row is what refuses its still-unexpired token (session-check.ts).
  await db
    .deleteFrom('console_sessions')
    .where('staff_user_id', '=', row.staffUserId)
    .where('expires_at', '<=', row.createdAt)
    .execute();
  await db
    .insertInto('console_sessions')
    .values({
      id: row.id,
      staff_user_id: row.staffUserId,
      restaurant_id: row.restaurantId,
      created_at: row.createdAt,
      expires_at: row.expiresAt,
    })
    .execute();
}

/** A live sign-in whose staff member still belongs to its restaurant. */
export function findLiveSession(db: Db, id: string, restaurantId: number, now: Date) {
  return db
    .selectFrom('console_sessions as s')
    .innerJoin('staff_users as u', 'u.id', 's.staff_user_id')
    .innerJoin('staff_user_restaurants as m', (join) =>
      join.onRef('m.staff_user_id', '=', 's.staff_user_id').onRef('m.restaurant_id', '=', 's.restaurant_id'),
    )
    .select(['s.staff_user_id', 'u.email', 'u.must_change_password'])
    .where('u.disabled_at', 'is', null)
    .where('s.id', '=', id)
    .where('s.restaurant_id', '=', restaurantId)
    .where('s.ended_at', 'is', null)
    .where('s.expires_at', '>', now)
    .executeTakeFirst();
}

export async function endConsoleSession(db: Db, id: string, now: Date): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ ended_at: now })
    .where('id', '=', id)
    .where('ended_at', 'is', null)
    .execute();
}

export async function endOtherSessions(
  db: Db,
  staffUserId: number,
  keepId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('console_sessions')
    .set({ ended_at: now })
    .where('staff_user_id', '=', staffUserId)
    .where('id', '!=', keepId)
    .where('ended_at', 'is', null)
    .execute();
}

export function listStaffUsers(db: Db) {
  return db
    .selectFrom('staff_users as u')
    .leftJoin('staff_user_restaurants as m', 'm.staff_user_id', 'u.id')
    .select((eb) => [
      'u.id',
      'u.email',
      'u.must_change_password',
      'u.disabled_at',
      'u.created_at',
      eb.fn.agg<number[] | null>('array_agg', ['m.restaurant_id']).as('restaurant_ids'),
    ])
    .groupBy('u.id')
    .orderBy('u.email')
    .execute();
}

/** A password set by the operator: to be changed at the next sign-in. */
export async function resetPassword(db: Db, staffUserId: number, passwordHash: string): Promise<void> {
  await db
    .updateTable('staff_users')
    .set({ password_hash: passwordHash, must_change_password: true })
    .where('id', '=', staffUserId)
    .execute();
}

/** Ends every live console session of the account; returns how many. */
export async function endAllSessions(db: Db, staffUserId: number, now: Date): Promise<number> {
  const ended = await db
    .updateTable('console_sessions')
    .set({ ended_at: now })
    .where('staff_user_id', '=', staffUserId)
    .where('ended_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(ended.numUpdatedRows);
}

export async function disableStaffUser(db: Db, staffUserId: number, now: Date): Promise<void> {
  await db.updateTable('staff_users').set({ disabled_at: now }).where('id', '=', staffUserId).execute();
}

export async function enableWithRestaurants(db: Db, staffUserId: number, restaurantIds: number[]) {
  await db.updateTable('staff_users').set({ disabled_at: null }).where('id', '=', staffUserId).execute();
  await db.deleteFrom('staff_user_restaurants').where('staff_user_id', '=', staffUserId).execute();
  await db
    .insertInto('staff_user_restaurants')
    .values(restaurantIds.map((restaurant_id) => ({ staff_user_id: staffUserId, restaurant_id })))
    .execute();
}
