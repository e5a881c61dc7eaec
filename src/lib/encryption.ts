// Secrets the server must use again (brands' fiscal provider tokens) are stored encrypted with
// AES-256-GCM: `v1:<iv>:<tag>:<ciphertext>`, each part base64url. The 32-byte key is the
// SHA-256 of the configured key string (FISCAL_TOKEN_KEY or the one generated into DATA_DIR).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';

function deriveKey(key: string): Buffer {
  if (!key) throw new Error('an encryption key is required');
  return createHash('sha256').update(key).digest();
}

export function encryptSecret(plain: string, key: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(key), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, tag, ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join(':');
}

/** The plain text of a stored secret; throws when the key is wrong or the value was altered. */
export function decryptSecret(stored: string, key: string): string {
  const parts = stored.split(':');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('not an encrypted secret');
  const [iv, tag, ciphertext] = parts.slice(1).map((p) => Buffer.from(p, 'base64url'));
  // A fixed tag length: a truncated tag must not pass as a weaker check.
  const decipher = createDecipheriv('aes-256-gcm', deriveKey(key), iv, { authTagLength: 16 });
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}
