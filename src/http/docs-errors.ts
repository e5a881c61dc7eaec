// Error responses of the OpenAPI document, made from the error catalogue itself (errors.ts):
// every factory is called once with sample arguments, so each documented key carries the
// status, message and headers the server really answers with.
import { ErrorResponse } from './error-schema.ts';
import { type AppError, errors, type OAuthError, oauthErrors } from './errors.ts';
import { componentRef, nameOf } from './schema-names.ts';

export type Sample = {
  status: number;
  key: string;
  message: string;
  headers: string[];
  body: object;
  /** Members of the body beyond the common ones (e.g. `conflicts`). */
  extra?: Record<string, unknown>;
};

const SAMPLE_ARGS: { [K in keyof typeof errors]?: Parameters<(typeof errors)[K]> } = {
  invalidBody: ['Invalid body: price must be >= 0.', [{ field: 'price', message: 'must be >= 0' }]],
  invalidQuery: [
    'Invalid query: restaurant_id must be a positive integer.',
    [{ field: 'restaurant_id', message: 'must be a positive integer' }],
  ],
  invalidParameter: [
    'Invalid path parameter: productId must be integer.',
    [{ field: 'productId', message: 'must be integer' }],
  ],
  duplicateProductIds: [[7]],
  insufficientScope: ['products:write'],
  rateLimited: [30],
  routeNotFound: ['GET', '/v1/unknown'],
  productUpdateConflict: [[{ index: 0, id: 7, current_updated_at: '2026-03-06T21:00:00.123Z' }]],
};

const OAUTH_SAMPLE_ARGS: { [K in keyof typeof oauthErrors]?: Parameters<(typeof oauthErrors)[K]> } = {
  invalidRequest: ['The grant_type parameter is required.'],
  unauthorizedClient: ['This client may not use this grant type.'],
  accessDenied: ['A valid restaurant session must approve the application.'],
  unsupportedGrantType: ['password'],
  rateLimited: [30],
};

function call<T>(
  factories: Record<string, (...args: any[]) => T>,
  args: Record<string, unknown[] | undefined>,
) {
  return Object.entries(factories).map(([name, make]) => make(...(args[name] ?? [])));
}

/** A key's sample is its first factory's (`serviceUnavailable` documents the key, not `shuttingDown`). */
const byKey = (samples: Sample[]): ReadonlyMap<string, Sample> =>
  new Map(samples.toReversed().map((s) => [s.key, s]));

export const APP_ERRORS = byKey(
  call<AppError>(errors, SAMPLE_ARGS).map((e) => ({
    status: e.statusCode,
    key: e.key,
    message: e.message,
    headers: Object.keys(e.headers ?? {}),
    body: {
      statusCode: e.statusCode,
      message: e.message,
      key: e.key,
      ...(e.errors?.length ? { errors: e.errors } : {}),
      ...e.extra,
    },
    extra: e.extra,
  })),
);

export const OAUTH_ERRORS = byKey(
  call<OAuthError>(oauthErrors, OAUTH_SAMPLE_ARGS).map((e) => ({
    status: e.statusCode,
    key: e.error,
    message: e.message,
    headers: ['cache-control', ...Object.keys(e.headers ?? {})],
    body: { error: e.error, error_description: e.message },
  })),
);

const HEADERS: Record<string, { name: string; description: string; schema: object }> = {
  'x-error-id': {
    name: 'X-Error-Id',
    description: 'Identifier of this error, also written in the server log: quote it to support.',
    schema: { type: 'string', format: 'uuid' },
  },
  'retry-after': {
    name: 'Retry-After',
    description: 'Seconds to wait before the next request.',
    schema: { type: 'integer', minimum: 1 },
  },
  'www-authenticate': {
    name: 'WWW-Authenticate',
    description: 'The authentication challenge (RFC 6750 3, RFC 6749 5.2).',
    schema: { type: 'string' },
  },
  'cache-control': { name: 'Cache-Control', description: 'Always `no-store`.', schema: { type: 'string' } },
};

/** Response headers as @fastify/swagger reads them: a JSON schema with a description, by name. */
export function headerSchemas(names: string[]): Record<string, object> {
  return Object.fromEntries(
    names.map((n) => [HEADERS[n].name, { ...HEADERS[n].schema, description: HEADERS[n].description }]),
  );
}

/** The samples of `keys` grouped by status; an unknown key is a mistake in a route and throws. */
export function byStatus(catalogue: ReadonlyMap<string, Sample>, keys: Iterable<string>) {
  const groups = new Map<number, Sample[]>();
  for (const key of new Set(keys)) {
    const sample = catalogue.get(key);
    if (!sample) throw new Error(`OpenAPI: the error key "${key}" is not in the error catalogue`);
    groups.set(sample.status, [...(groups.get(sample.status) ?? []), sample]);
  }
  return groups;
}

/**
 * One documented error response: the named error body (Error, TokenError, or the route's own
 * for that status, such as UpdateConflict) with `key` narrowed to the keys the route can answer,
 * an example per key, and the headers the server sends with them.
 */
export function errorResponse(samples: Sample[], declared: any, keyProperty: 'key' | 'error') {
  const generic = componentRef(keyProperty === 'key' ? nameOf(ErrorResponse)! : 'TokenError');
  const base = declared?.$ref ? declared : generic;
  const description = samples.map((s) => `\`${s.key}\`: ${s.message}`).join('\n\n');
  const headers = ['x-error-id', ...new Set(samples.flatMap((s) => s.headers))];
  const extra = base.$ref === generic.$ref ? samples.flatMap((s) => Object.entries(s.extra ?? {})) : [];
  const narrowed = {
    type: 'object',
    properties: {
      ...Object.fromEntries(extra.map(([name, value]) => [name, schemaOf(value)])),
      [keyProperty]: { type: 'string', enum: samples.map((s) => s.key) },
    },
  };
  return {
    allOf: [base, narrowed],
    'x-response-description': description,
    'x-examples': Object.fromEntries(
      samples.map((s) => [s.key, { summary: s.message.slice(0, 80), value: s.body }]),
    ),
    headers: headerSchemas(headers),
  };
}

/** The schema of a sample value, for the extra members of an error body. */
function schemaOf(value: unknown): object {
  if (Array.isArray(value)) return { type: 'array', items: value.length ? schemaOf(value[0]) : {} };
  if (value === null) return { type: 'null' };
  if (typeof value === 'object') {
    return {
      type: 'object',
      properties: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, schemaOf(v)])),
    };
  }
  return { type: Number.isInteger(value) ? 'integer' : typeof value };
}
