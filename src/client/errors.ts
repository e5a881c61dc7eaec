// The one error type of the client, and the masking every message and log event goes through.

export type FieldError = { field: string; message: string };

/**
 * `key` is the API's error key (`product_update_conflict`, `invalid_token`...), the OAuth
 * `error` code on the token endpoint (`invalid_grant`...), or one of the client's own:
 * `network_error` (no answer; reads only, nothing was sent or the answer was lost),
 * `outcome_unknown` (a write got no answer: it may have been applied, re-read before retrying),
 * `timeout`, `unexpected_response`, `token_persistence_failed`.
 */
export class ComandaError extends Error {
  readonly status: number;
  readonly key: string;
  /** The `X-Error-Id` header: quote it to support. */
  readonly errorId: string | undefined;
  readonly errors: FieldError[] | undefined;
  /** Seconds from `Retry-After`, when the server sent it. */
  readonly retryAfter: number | undefined;
  /** The parsed error body (e.g. `conflicts` of a 409). */
  readonly body: unknown;

  constructor(
    status: number,
    key: string,
    message: string,
    details: {
      errorId?: string;
      errors?: FieldError[];
      retryAfter?: number;
      body?: unknown;
      cause?: unknown;
    } = {},
  ) {
    super(maskSecrets(message), details.cause === undefined ? undefined : { cause: masked(details.cause) });
    this.name = 'ComandaError';
    this.status = status;
    this.key = key;
    this.errorId = details.errorId;
    this.errors = details.errors;
    this.retryAfter = details.retryAfter;
    this.body = details.body;
  }
}

// API keys, access and refresh tokens, authorization codes, and anything after "Bearer ".
const SECRET = /\b(ck_live_|ck_test_|cat_|crt_|cac_)([A-Za-z0-9_-]{4})[A-Za-z0-9_-]*/g;
const BEARER = /\b(Bearer\s+)\S+/gi;

/** Keeps a secret's prefix and 4 characters, enough to tell keys apart, never to use one. */
export function maskSecrets(text: string): string {
  return text.replace(SECRET, '$1$2…').replace(BEARER, '$1***');
}

/**
 * `cause` with the secrets of its messages, stacks and string fields masked, down its own causes:
 * the error itself when it holds none, else a copy (an inspection or a logger prints the cause
 * whole, where the platform's error may quote a header, e.g. one whose value it refused).
 */
function masked(cause: unknown, depth = 0): unknown {
  if (typeof cause === 'string') return maskSecrets(cause);
  if (!(cause instanceof Error)) return cause;
  const inner = depth < 8 ? masked(cause.cause, depth + 1) : undefined;
  const fields = Object.entries(cause)
    .filter(([name]) => !['cause', 'message', 'stack'].includes(name))
    .map(([name, value]) => [name, typeof value === 'string' ? maskSecrets(value) : value]);
  const message = maskSecrets(cause.message);
  const stack = cause.stack === undefined ? undefined : maskSecrets(cause.stack);
  const same =
    inner === cause.cause &&
    message === cause.message &&
    stack === cause.stack &&
    fields.every(([name, value]) => value === (cause as unknown as Record<string, unknown>)[name as string]);
  if (same) return cause;
  const copy = Object.assign(new Error(message, inner === undefined ? undefined : { cause: inner }), {
    ...Object.fromEntries(fields),
  });
  copy.name = cause.name;
  copy.stack = stack;
  return copy;
}

/** An HTTP answer read whole: its status, headers and body text. */
export type Answer = { status: number; statusText: string; headers: Headers; text: string };

/** Builds the ComandaError of a non-2xx answer from its body and headers. */
export function errorFromAnswer(answer: Answer): ComandaError {
  let body: any;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  const header = answer.headers.get('retry-after');
  const retryAfter = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
  const errorId = answer.headers.get('x-error-id') ?? undefined;
  const key = body?.key ?? body?.error ?? (answer.status === 429 ? 'rate_limited' : 'unexpected_response');
  const message =
    body?.message ?? body?.error_description ?? `HTTP ${answer.status} ${answer.statusText}`.trim();
  return new ComandaError(answer.status, key, message, { errorId, errors: body?.errors, retryAfter, body });
}
