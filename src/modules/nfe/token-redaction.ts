// The brand's fiscal token leaves the process in more than one form: as the Basic credential
// (base64 of "token:"), and whatever a provider makes of it when it echoes a request back (the
// raw token, URL-encoded, JSON-escaped, base64 without padding). Every form is masked in text
// bound for the log before any of it is written.

const MASK = '***';

/** Every form of `token` a log line must never hold, longest first. */
export function secretForms(token: string): string[] {
  if (token === '') return [];
  const basic = Buffer.from(`${token}:`).toString('base64');
  const forms = [
    token,
    encodeURIComponent(token),
    JSON.stringify(token).slice(1, -1),
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
