// Standard Webhooks signing with the standardwebhooks package: webhook-id (the event id, the same
// on every retry), webhook-timestamp (seconds) and webhook-signature, one `v1,<base64>` per live
// secret separated by spaces, so a receiver still holding a replaced secret verifies during the
// 24 hours after the rotation that replaced it.
import { randomBytes } from 'node:crypto';
import type { Webhook } from 'standardwebhooks';

/** A new signing secret: `whsec_` and 32 random bytes in base64, as the specification shows them. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The headers of a delivery signed with each live secret's signer (the worker keeps one per secret in use). */
export function signedHeaders(signers: Webhook[], id: string, body: string, now = new Date()) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signers.map((signer) => signer.sign(id, now, body)).join(' '),
  };
}
