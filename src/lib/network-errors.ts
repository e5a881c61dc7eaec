// What an outgoing HTTP call's error says: whether the server could be reached at all (a setting
// to check, not a retry), and a one-line description for the log.
// No connection was made: the name does not resolve, nothing listens, no route, no
// connection within undici's connect timeout, or the TLS handshake or certificate failed.
const UNREACHABLE_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'UND_ERR_CONNECT_TIMEOUT',
  'EPROTO',
]);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED_CERT)/;

/** Whether the failure is one of reaching the server (the error, its causes, an AggregateError's errors). */
export function isUnreachable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 4) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || TLS_CODE.test(code))) return true;
  const inner = error instanceof AggregateError ? error.errors : [];
  return [error.cause, ...inner].some((cause) => isUnreachable(cause, depth + 1));
}

/** One line for a log or a delivery record: name, code and message (of the cause, when it has the code). */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const codeOf = (e: unknown) => (e as { code?: unknown })?.code;
  const shown =
    typeof codeOf(error) !== 'string' && typeof codeOf(error.cause) === 'string'
      ? (error.cause as Error)
      : error;
  const code = codeOf(shown);
  return typeof code === 'string'
    ? `${shown.name} ${code}: ${shown.message}`
    : `${shown.name}: ${shown.message}`;
}
