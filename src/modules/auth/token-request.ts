// Reading a token request: the form body, its parameters (each at most once), and client
// credentials sent with HTTP Basic (RFC 6749 2.3.1).
import type { FastifyRequest } from 'fastify';
import { oauthErrors, requestName } from '../../http/errors.ts';
import { formFields } from '../../http/request-utf8.ts';

export type TokenParams = Map<string, string>;

type BasicCredentials = { clientId: string; clientSecret: string };

const FORM = 'application/x-www-form-urlencoded';

export function readForm(request: FastifyRequest): URLSearchParams {
  const media = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (media !== FORM) throw oauthErrors.invalidRequest(`The body must be ${FORM}.`);
  // Its 400 (an escape that is not UTF-8, or a % that starts none) is answered as invalid_request.
  return formFields(typeof request.body === 'string' ? request.body : '');
}

/** RFC 6749 3.2: no parameter twice; 3.1: a parameter without a value counts as omitted. */
export function singleValued(form: URLSearchParams): TokenParams {
  const seen = new Set<string>();
  const params: TokenParams = new Map();
  for (const [name, value] of form) {
    if (seen.has(name)) {
      throw oauthErrors.invalidRequest(`The parameter ${requestName(name)} was sent more than once.`);
    }
    seen.add(name);
    if (value !== '') params.set(name, value);
  }
  return params;
}

function formDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw oauthErrors.invalidClient('The Basic credentials are not form-encoded.', true);
  }
}

/** The Basic client credentials of the Authorization header, or null without that header. */
export function basicCredentials(request: FastifyRequest): BasicCredentials | null {
  const header = request.headers.authorization;
  if (header === undefined) return null;
  const match = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(header);
  if (!match) throw oauthErrors.invalidRequest('The Authorization header must use the Basic scheme.');
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) throw oauthErrors.invalidClient('The Basic credentials are malformed.', true);
  return {
    clientId: formDecode(decoded.slice(0, colon)),
    clientSecret: formDecode(decoded.slice(colon + 1)),
  };
}
