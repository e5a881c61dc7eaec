// Scopes at the token endpoint (RFC 6749 3.3): space-separated, and a request can only narrow
// what the credential was granted, never widen it.
import { oauthErrors, requestName } from '../../http/errors.ts';
import { SCOPES, type Scope } from '../../http/principal.ts';

/** Known scopes, deduplicated, in the catalogue's order (the order `scope` is answered in). */
export function canonicalScopes(scopes: readonly string[]): Scope[] {
  return SCOPES.filter((scope) => scopes.includes(scope));
}

/** `requested` (a `scope` parameter) checked against `granted`; all of `granted` when omitted. */
export function narrowScopes(requested: string | undefined, granted: readonly string[]): Scope[] {
  const wanted = [...new Set((requested ?? '').split(' ').filter(Boolean))];
  if (!wanted.length) return canonicalScopes(granted);
  const unknown = wanted.filter((scope) => !SCOPES.includes(scope as Scope));
  if (unknown.length) {
    throw oauthErrors.invalidScope(`Unknown scope: ${unknown.map(requestName).join(' ')}.`);
  }
  const beyond = wanted.filter((scope) => !granted.includes(scope));
  if (beyond.length) {
    throw oauthErrors.invalidScope(`Scope not granted to this credential: ${beyond.join(' ')}.`);
  }
  return canonicalScopes(wanted);
}
