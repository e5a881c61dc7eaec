// Staff accounts as the operator manages them (`comanda user list|reset-password|disable`): a
// reset gives a one-time password and ends every console session of the account; a disabled
// account can no longer sign in and its sessions end at once.
import type { Db } from '../../db/database.ts';
import { generatePassword, hashPassword } from './passwords.ts';
import * as repo from './staff-repository.ts';
import { normalizeEmail, StaffInputError } from './staff-service.ts';

export type StaffListing = {
  id: number;
  email: string;
  restaurant_ids: number[];
  must_change_password: boolean;
  disabled: boolean;
  created_at: string;
};

export async function listStaff(db: Db): Promise<StaffListing[]> {
  const rows = await repo.listStaffUsers(db);
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    restaurant_ids: (r.restaurant_ids ?? []).map(Number).sort((a, b) => a - b),
    must_change_password: r.must_change_password,
    disabled: r.disabled_at !== null,
    created_at: new Date(r.created_at).toISOString(),
  }));
}

async function accountOf(db: Db, email: string) {
  const row = await repo.findStaffByEmail(db, normalizeEmail(email));
  if (!row) throw new StaffInputError(`no console account has the email ${email}`);
  return row;
}

/** A new one-time password (to change at the next sign-in); every session of the account ends. */
export async function resetStaffPassword(db: Db, email: string) {
  const account = await accountOf(db, email);
  const password = generatePassword();
  await repo.resetPassword(db, account.id, await hashPassword(password));
  const ended = await repo.endAllSessions(db, account.id, new Date());
  return {
    id: account.id,
    email: normalizeEmail(email),
    one_time_password: password,
    sessions_ended: ended,
  };
}

export async function disableStaff(db: Db, email: string) {
  const account = await accountOf(db, email);
  const already = account.disabled_at !== null;
  if (!already) await repo.disableStaffUser(db, account.id, new Date());
  const ended = await repo.endAllSessions(db, account.id, new Date());
  return {
    id: account.id,
    email: normalizeEmail(email),
    already_disabled: already,
    sessions_ended: ended,
  };
}

/**
 * The demo's console account: created for the demo restaurants, or (on a reload) enabled again,
 * linked to them and given a new one-time password.
 */
export async function demoStaffAccount(db: Db, email: string, restaurantIds: number[]) {
  const existing = await repo.findStaffByEmail(db, email);
  if (!existing) {
    const password = generatePassword();
    const id = await repo.insertStaffUser(db, {
      email,
      passwordHash: await hashPassword(password),
      mustChange: true,
      restaurantIds,
    });
    return { id, email, restaurant_ids: restaurantIds, one_time_password: password };
  }
  await repo.enableWithRestaurants(db, existing.id, restaurantIds);
  const reset = await resetStaffPassword(db, email);
  return {
    id: existing.id,
    email,
    restaurant_ids: restaurantIds,
    one_time_password: reset.one_time_password,
  };
}
