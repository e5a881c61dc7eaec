// Staff accounts and console sign-ins: creating an account (the `comanda user create` command),
// checking a password under the failed-sign-in limits, starting and ending a console session,
// and changing a password.
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { signSession, verifySession } from '../auth/session-token.ts';
import { decoyHash, generatePassword, hashPassword, passwordProblem, verifyPassword } from './passwords.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';
import * as repo from './staff-repository.ts';

/** Console sessions last 8 hours (the cookie's Max-Age and the restaurant session's expiry). */
export const CONSOLE_SESSION_TTL_SECONDS = 8 * 3600;

/** A mistake in what was asked (bad email, unknown restaurant): its message is for the user. */
export class StaffInputError extends Error {}

/** The form an email is stored and looked up in: trimmed, lower case, accents composed (NFC). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase().normalize('NFC');
}

type NewStaffUser = { email: string; restaurantIds: number[]; password?: string };

export async function createStaffUser(db: Db, input: NewStaffUser) {
  const email = normalizeEmail(input.email);
  if (email.length > 254 || !/^[^\s@\0]+@[^\s@\0]+\.[^\s@\0]+$/.test(email)) {
    throw new StaffInputError(`"${input.email}" is not an email address`);
  }
  const restaurantIds = [...new Set(input.restaurantIds)];
  if (!restaurantIds.length) throw new StaffInputError('at least one restaurant is required');
  const found = await repo.existingRestaurants(db, restaurantIds);
  const missing = restaurantIds.filter((id) => !found.some((r) => r.id === id));
  if (missing.length) throw new StaffInputError(`restaurant ${missing.join(', ')} does not exist`);
  const problem = input.password === undefined ? null : passwordProblem(input.password);
  if (problem) throw new StaffInputError(`the password ${problem}`);
  if (await repo.findStaffByEmail(db, email)) throw new StaffInputError(`${email} already has an account`);
  const password = input.password ?? generatePassword();
  const mustChange = input.password === undefined;
  const id = await repo.insertStaffUser(db, {
    email,
    passwordHash: await hashPassword(password),
    mustChange,
    restaurantIds,
  });
  return {
    id,
    email,
    restaurant_ids: restaurantIds,
    must_change_password: mustChange,
    ...(mustChange ? { one_time_password: password } : {}),
  };
}

type SignInOutcome = { staffUserId: number } | { refused: 'credentials' } | { retryAfter: number };

export async function checkSignIn(
  db: Db,
  limiter: SignInLimiter,
  input: { email: string; password: string; address: string },
): Promise<SignInOutcome> {
  const email = normalizeEmail(input.email);
  const retryAfter = await limiter.attempt(email, input.address);
  if (retryAfter) return { retryAfter };
  const row = await repo.findStaffByEmail(db, email);
  const matches = await verifyPassword(input.password, row?.password_hash ?? (await decoyHash()));
  if (!row || !matches || row.disabled_at !== null) return { refused: 'credentials' };
  await limiter.succeeded(email, input.address);
  return { staffUserId: row.id };
}

/** A restaurant session for the console cookie, recorded so that sign-out can end it. */
export async function startConsoleSession(ctx: AppContext, staffUserId: number, restaurantId: number) {
  const now = new Date();
  const token = signSession(
    restaurantId,
    CONSOLE_SESSION_TTL_SECONDS,
    ctx.secrets.sessionSecret,
    now.getTime(),
  );
  const claims = verifySession(token, ctx.secrets.sessionSecret, now.getTime())!;
  await repo.insertConsoleSession(ctx.db, {
    id: claims.jti,
    staffUserId,
    restaurantId,
    createdAt: now,
    expiresAt: new Date(claims.exp * 1000),
  });
  return token;
}

export function endConsoleSession(db: Db, sessionId: string): Promise<void> {
  return repo.endConsoleSession(db, sessionId, new Date());
}

export async function changePassword(
  db: Db,
  limiter: SignInLimiter,
  staff: { staffUserId: number; email: string; address: string; sessionId: string },
  input: { current: string; next: string; confirm: string },
): Promise<Record<string, string>> {
  const problems: Record<string, string> = {};
  const wait = await limiter.attempt(staff.email, staff.address);
  const stored = wait ? undefined : await repo.findPasswordHash(db, staff.staffUserId);
  if (wait)
    problems.current_password = `Too many wrong passwords: try again in ${Math.ceil(wait / 60)} minutes.`;
  else if (!stored || !(await verifyPassword(input.current, stored.password_hash))) {
    problems.current_password = 'The current password is not right.';
  } else await limiter.succeeded(staff.email, staff.address);
  const problem = passwordProblem(input.next);
  if (problem) problems.new_password = `The new password ${problem}.`;
  else if (input.next === input.current) problems.new_password = 'Choose a password you have not used here.';
  if (input.next !== input.confirm) problems.confirm_password = 'The two new passwords differ.';
  if (Object.keys(problems).length) return problems;
  await repo.updatePassword(db, staff.staffUserId, await hashPassword(input.next));
  // Whoever else knew the old password is signed out everywhere else.
  await repo.endOtherSessions(db, staff.staffUserId, staff.sessionId, new Date());
  return problems;
}
