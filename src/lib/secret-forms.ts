// A secret sent as an HTTP Basic user name (a brand's fiscal token) leaves the process in more
// than one form: the Basic credential (base64 of "secret:"), and whatever a server makes of it
// when it echoes a request back (the raw secret, URL-encoded, JSON-escaped, base64 without
// padding). Text bound for a log line or an answer is masked in every form before it is written.

const MASK = '***';

/** Every form of `secret` a log line must never hold, longest first. */
export function secretForms(secret: string): string[] {
  if (secret === '') return [];
  const basic = Buffer.from(`${secret}:`).toString('base64');
  const forms = [
    secret,
    encodeURIComponent(secret),
    JSON.stringify(secret).slice(1, -1),
    basic,
    basic.replace(/=+$/, ''),
    encodeURIComponent(basic),
    basic.replaceAll('/', '\\/'),
  ];
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** `text` with every form of the secret replaced by ***. */
export function redact(text: string, forms: string[]): string {
  let masked = text;
  for (const form of forms) masked = masked.split(form).join(MASK);
  return masked;
}
