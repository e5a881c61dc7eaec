// High-entropy secrets, their stored SHA-256 hashes, and constant-time comparison.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newSecret(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What may be shown of a secret: its prefix and a few characters, never enough to use it. */
export function maskSecret(secret: string): string {
  const cut = secret.lastIndexOf('_') + 1;
  return `${secret.slice(0, cut)}${secret.slice(cut, cut + 4)}…`;
}
