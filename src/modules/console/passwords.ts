// Staff passwords: Node's scrypt (no native dependency) with a random 16-byte salt, stored with
// its parameters as `scrypt$N$r$p$salt$hash` so the cost can be raised later without breaking
// the hashes already stored. N = 2^16 costs about 0.3 s and 64 MiB on this machine.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const COST = { N: 2 ** 16, r: 8, p: 1 };
const KEY_LENGTH = 64;
const MIN_PASSWORD_LENGTH = 10;
const MAX_PASSWORD_LENGTH = 200;

function derive(password: string, salt: Buffer, cost: typeof COST): Promise<Buffer> {
  const maxmem = 128 * cost.N * cost.r * 2;
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, { ...cost, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Constant-time check; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  if (scheme !== 'scrypt' || !salt || !hash || !Object.values(cost).every(Number.isInteger)) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), cost);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let decoy: Promise<string> | undefined;

/** Checked for an unknown email too, so a sign-in takes the same time whether the account exists. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('base64url'));
  return decoy;
}

/** A one-time password for a new account: 20 characters, 120 bits. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}

/** Lengths in characters of the password as hashed (NFC code points), not UTF-16 code units. */
export function passwordProblem(password: string): string | null {
  const length = [...password.normalize('NFC')].length;
  if (length < MIN_PASSWORD_LENGTH) return `must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
