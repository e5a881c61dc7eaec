// The one error catalogue: every error a route can answer with is made here.
// Services throw these; the single error handler (error-handler.ts) renders them.

export type FieldError = { field: string; message: string };

export class AppError extends Error {
  readonly statusCode: number;
  readonly key: string;
  readonly errors?: FieldError[];
  readonly headers?: Record<string, string>;
  /** Extra top-level members of the body (e.g. `conflicts`). */
  readonly extra?: Record<string, unknown>;
  /** A 5xx the service answers by design (a stop's drain): logged at info, without a stack. */
  readonly expected: boolean;

  constructor(
    statusCode: number,
    key: string,
    message: string,
    opts: {
      errors?: FieldError[];
      headers?: Record<string, string>;
      extra?: Record<string, unknown>;
      expected?: boolean;
    } = {},
  ) {
    super(message);
    this.statusCode = statusCode;
    this.key = key;
    this.errors = opts.errors;
    this.headers = opts.headers;
    this.extra = opts.extra;
    this.expected = opts.expected ?? false;
  }
}

/** An answer lists at most this many field problems; its message counts the others. */
const MAX_FIELD_ERRORS = 20;
/** Field names and messages are cut to this many characters (a field name can be any key sent). */
const MAX_FIELD_TEXT = 200;

/** `text` cut to at most `max` characters, the cut marked with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}\u2026`;
}

function listed(fields: FieldError[]): FieldError[] {
  return fields.slice(0, MAX_FIELD_ERRORS).map(({ field, message }) => ({
    field: clip(field, MAX_FIELD_TEXT),
    message: clip(message, MAX_FIELD_TEXT),
  }));
}

/** "price is required; name ...; and 3 more problems": the listed problems, then a count. */
export function summarize(fields: FieldError[]): string {
  const shown = listed(fields)
    .map((f) => `${f.field || '(root)'} ${f.message}`)
    .join('; ');
  const more = fields.length - MAX_FIELD_ERRORS;
  return more > 0 ? `${shown}; and ${more} more problem${more === 1 ? '' : 's'}` : shown;
}

const fieldErrors = (errors: FieldError[]) => ({ errors: listed(errors) });

export const errors = {
  invalidBody: (message: string, fields: FieldError[] = []) =>
    new AppError(400, 'invalid_body', message, fieldErrors(fields)),
  invalidQuery: (message: string, fields: FieldError[] = []) =>
    new AppError(400, 'invalid_query', message, fieldErrors(fields)),
  invalidParameter: (message: string, fields: FieldError[] = []) =>
    new AppError(400, 'invalid_parameter', message, fieldErrors(fields)),
  productChangesRequired: (
    message = 'The body carries no change: send at least one field to edit.',
    fields: FieldError[] = [],
  ) => new AppError(400, 'product_changes_required', message, fieldErrors(fields)),
  duplicateProductIds: (ids: number[]) =>
    new AppError(400, 'duplicate_product_ids', `The batch repeats product ids: ${ids.join(', ')}.`),
  restaurantIdRequired: () =>
    new AppError(
      400,
      'restaurant_id_required',
      'This credential authorizes several restaurants: pass restaurant_id in the query.',
    ),
  invalidToken: (message = 'The access token is missing, expired or invalid.') =>
    new AppError(401, 'invalid_token', message, {
      headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
    }),
  insufficientScope: (scope: string) =>
    new AppError(403, 'insufficient_scope', `This route needs the scope ${scope}.`, {
      headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
    }),
  restaurantForbidden: () =>
    new AppError(403, 'restaurant_forbidden', 'This credential does not authorize that restaurant.'),
  /** `fields` names the offending items of a bulk batch (`[50].id`). */
  productNotFound: (fields: FieldError[] = []) =>
    new AppError(404, 'product_not_found', 'Product not found.', fieldErrors(fields)),
  productCategoryNotFound: (fields: FieldError[] = []) =>
    new AppError(404, 'product_category_not_found', 'Product category not found.', fieldErrors(fields)),
  brandNotFound: () => new AppError(404, 'brand_not_found', 'Brand not found.'),
  nfeNotFound: () => new AppError(404, 'nfe_not_found', 'Received NF-e not found.'),
  webhookEndpointNotFound: () =>
    new AppError(404, 'webhook_endpoint_not_found', 'Webhook endpoint not found.'),
  webhookEndpointLimit: (max: number) =>
    new AppError(
      409,
      'webhook_endpoint_limit',
      `A restaurant has at most ${max} webhook endpoints: delete one before creating another.`,
    ),
  webhookEndpointDisabled: () =>
    new AppError(
      409,
      'webhook_endpoint_disabled',
      'The webhook endpoint is disabled (every delivery failed for 3 days): enable it again (POST /v1/webhook-endpoints/{id}/enable) once its receiver works.',
    ),
  routeNotFound: (method: string, url: string) =>
    new AppError(404, 'route_not_found', `No route ${method} ${url.split('?')[0]}.`),
  methodNotAllowed: () => new AppError(405, 'method_not_allowed', 'Method not allowed.'),
  productUpdateConflict: (conflicts: { index: number; id: number; current_updated_at: string }[]) =>
    new AppError(
      409,
      'product_update_conflict',
      'The product changed since it was read (expected_updated_at differs): nothing was written. Re-read it and seek new approval.',
      { extra: { conflicts } },
    ),
  invalidIdempotencyKey: () =>
    new AppError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 visible ASCII characters.',
      {
        errors: [{ field: 'Idempotency-Key', message: 'must be 1 to 255 visible ASCII characters' }],
      },
    ),
  idempotencyKeyReused: () =>
    new AppError(
      422,
      'idempotency_key_reused',
      'This Idempotency-Key was used with another request (method, URL or body); use a new key for a new request.',
    ),
  idempotencyKeyInUse: () =>
    new AppError(
      409,
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still running; retry after the Retry-After seconds.',
      { headers: { 'retry-after': '1' } },
    ),
  payloadTooLarge: () => new AppError(413, 'payload_too_large', 'The body is larger than 1 MiB.'),
  // Raised by Node before any route runs (src/http/connection-limits.ts).
  requestTimeout: () =>
    new AppError(408, 'request_timeout', 'The request was not received in time; send it again whole.'),
  headersTooLarge: () =>
    new AppError(
      431,
      'headers_too_large',
      'The request line and headers are too large (URL and query included).',
    ),
  malformedRequest: () => new AppError(400, 'malformed_request', 'The HTTP request is malformed.'),
  rateLimited: (retryAfterSeconds: number) =>
    new AppError(
      429,
      'rate_limited',
      'Too many requests for this credential; retry after the Retry-After seconds.',
      {
        headers: { 'retry-after': String(retryAfterSeconds) },
      },
    ),
  internal: () =>
    new AppError(
      500,
      'internal_error',
      'Internal error. Retry later; if it persists, contact support with the X-Error-Id header value.',
    ),
  dataValidation: () =>
    new AppError(
      500,
      'data_validation_failed',
      'Internal data validation failure. Retry later; if it persists, contact support with the X-Error-Id header value.',
    ),
  /** `unreachable`: no connection was made (DNS, refused, TLS): a setting to check, not a retry. */
  fiscalUpstream: (unreachable = false) =>
    new AppError(
      502,
      'fiscal_upstream_error',
      unreachable
        ? 'The fiscal provider is unreachable (DNS, connection or TLS failure): check the server setting FISCAL_PROVIDER_URL.'
        : 'The fiscal provider query failed. Retry later.',
    ),
  // Every 503 carries Retry-After. A missing credential lasts until an operator configures one:
  // an hour, longer than a client waits (the client library then gives up at once).
  fiscalNotConfigured: () =>
    new AppError(503, 'fiscal_not_configured', 'The brand has no fiscal provider credential configured.', {
      headers: { 'retry-after': '3600' },
    }),
  /** The database cannot serve now. */
  serviceUnavailable: () =>
    new AppError(503, 'service_unavailable', 'The database is unavailable. Retry later.', {
      headers: { 'retry-after': '1' },
    }),
  /** This instance is stopping (draining.ts): the same key, expected, so not logged as a fault. */
  shuttingDown: () =>
    new AppError(503, 'service_unavailable', 'This instance is shutting down. Retry the request.', {
      headers: { 'retry-after': '1' },
      expected: true,
    }),
};

/** RFC 6749 section 5.2 errors of the token endpoint: rendered as `{error, error_description}`. */
export class OAuthError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly headers?: Record<string, string>;
  constructor(statusCode: number, error: string, description: string, headers?: Record<string, string>) {
    super(description);
    this.statusCode = statusCode;
    this.error = error;
    this.headers = headers;
  }
}

/**
 * A name the request sent (a grant_type, a parameter's name, a scope), as an error repeats it: only
 * a plain lowercase name of at most 40 characters is quoted. A secret sent in the wrong place (an
 * API key or refresh token as a grant_type or a parameter name, a whole form URL-encoded into one
 * value) is 32 random bytes, over 40 characters: it is never repeated in an answer or a log line.
 */
export function requestName(text: string): string {
  return /^[a-z][a-z0-9_.:-]{0,39}$/.test(text) ? `"${text}"` : '(not repeated: not a plain name)';
}

export const oauthErrors = {
  invalidRequest: (description: string) => new OAuthError(400, 'invalid_request', description),
  invalidScope: (description = 'The requested scope exceeds the scopes granted to the credential.') =>
    new OAuthError(400, 'invalid_scope', description),
  invalidClient: (description = 'Client authentication failed.', basic = false) =>
    new OAuthError(401, 'invalid_client', description, {
      'www-authenticate': basic ? 'Basic realm="comanda"' : 'Bearer realm="comanda"',
    }),
  invalidGrant: (description = 'The grant is invalid, expired, revoked or was already used.') =>
    new OAuthError(400, 'invalid_grant', description),
  unauthorizedClient: (description: string) => new OAuthError(400, 'unauthorized_client', description),
  accessDenied: (description: string) => new OAuthError(400, 'access_denied', description),
  unsupportedResponseType: () =>
    new OAuthError(400, 'unsupported_response_type', 'Only response_type=code is supported.'),
  unsupportedGrantType: (grantType: string) =>
    new OAuthError(
      400,
      'unsupported_grant_type',
      `Unsupported grant_type ${requestName(grantType)}: use api_key, refresh_token, client_credentials or authorization_code.`,
    ),
  rateLimited: (retryAfterSeconds: number) =>
    new OAuthError(429, 'rate_limited', 'Too many token requests; retry after the Retry-After seconds.', {
      'retry-after': String(retryAfterSeconds),
    }),
};
