// Checks a webhook comanda sent, per Standard Webhooks, with the platform's WebCrypto only:
// HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` under the base64 secret after
// `whsec_`, compared with each `v1,<base64>` of webhook-signature (several during a secret rotation),
// and a timestamp within 5 minutes of now. Returns the parsed event; throws a ComandaError
// `webhook_verification_failed` otherwise (a signed body that is not JSON included).
import { ComandaError } from './errors.ts';
import type { ComandaEvent } from './event-types.ts';

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderBag, name: string): string {
  const value =
    headers instanceof Headers
      ? headers.get(name)
      : Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  // A header sent several times: its values as one list (a repeated id or timestamp then fails its check).
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (!text) throw refused(`the ${name} header is missing`);
  return text;
}

const refused = (why: string) =>
  new ComandaError(0, 'webhook_verification_failed', `Webhook not verified: ${why}.`);

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Compares in time independent of where the first difference is. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ (b[i % b.length] ?? 0);
  return difference === 0;
}

export async function verifyWebhook(
  secret: string,
  headers: HeaderBag,
  body: string | Uint8Array,
  now = new Date(),
): Promise<ComandaEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || Math.abs(now.getTime() / 1000 - seconds) > WEBHOOK_TOLERANCE_SECONDS) {
    throw refused('the timestamp is not within 5 minutes of now');
  }
  let key: Awaited<ReturnType<typeof crypto.subtle.importKey>>;
  try {
    const raw = fromBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret);
    key = await crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  } catch (cause) {
    throw new ComandaError(
      0,
      'webhook_verification_failed',
      'Webhook not verified: the secret is not valid.',
      {
        cause,
      },
    );
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${text}`);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    if (version !== 'v1' || !signature) return false;
    try {
      return sameBytes(fromBase64(signature), expected);
    } catch {
      return false;
    }
  });
  if (!matches) throw refused('no signature matches the secret');
  try {
    return JSON.parse(text) as ComandaEvent;
  } catch {
    throw refused('the signed body is not a JSON event');
  }
}
