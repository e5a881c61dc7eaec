// @fastify/swagger's `transform`: what every data route shares is derived here from its
// `config.scope` and its schema parts (security, the standard error responses with their keys
// and headers, a tag), so route modules only declare what is theirs (an operationId, summary,
// parameters, bodies, success responses and, in `config.errorKeys`, their own keys).
import type { RouteOptions } from 'fastify';
import { APP_ERRORS, byStatus, errorResponse, headerSchemas, type Sample } from './docs-errors.ts';
import { describeOAuthRoute } from './docs-token.ts';
import { referenced } from './schema-names.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Catalogue keys (errors.ts) this route answers besides the standard ones; documented only. */
    errorKeys?: readonly string[];
  }
}

type Schema = Record<string, any>;

const HIDDEN = [/^\/healthz$/, /^\/readyz$/, /^\/metrics$/, /^\/docs(\/|$)/, /^\/openapi\.(json|yaml)$/];

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { type: 'integer', description: 'Requests allowed per minute for this credential.' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current minute.' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the window restarts.' },
};

/**
 * The keys every route of this shape can answer with, whatever its module. A route that takes any
 * credential (`config.anyCredential`, GET /v1/me) checks the token and spends the credential's
 * budget as a data route does, but names no scope and no restaurant.
 */
function standardKeys(schema: Schema, scope: unknown, anyCredential: boolean): string[] {
  const keys = ['internal_error'];
  if (schema.body) keys.push('invalid_body', 'payload_too_large');
  if (schema.querystring || scope) keys.push('invalid_query');
  if (schema.params) keys.push('invalid_parameter');
  if (scope) keys.push('restaurant_id_required', 'insufficient_scope', 'restaurant_forbidden');
  if (scope || anyCredential) keys.push('invalid_token', 'rate_limited', 'service_unavailable');
  return keys;
}

const VALIDATION: Record<string, [part: string, prefix: string]> = {
  invalid_body: ['body', 'Invalid body'],
  invalid_query: ['querystring', 'Invalid query'],
  invalid_parameter: ['params', 'Invalid path parameter'],
};

/** A field of the route's own schema part and what the validator would say of a wrong value. */
function exampleField(part: Schema | undefined): { field: string; message: string } | undefined {
  if (part?.type === 'array') {
    const item = exampleField(part.items);
    return item && { ...item, field: `[0].${item.field}` };
  }
  const field = part?.required?.[0] ?? Object.keys(part?.properties ?? {})[0];
  if (!field) return undefined;
  const type = part?.properties[field]?.type;
  return { field, message: type ? `must be ${[type].flat().join(',')}` : 'is invalid' };
}

/** Validation examples name a field of this route rather than the catalogue's sample. */
function forRoute(sample: Sample, schema: Schema): Sample {
  const validation = VALIDATION[sample.key];
  const error = validation && exampleField(schema[validation[0]]);
  if (!error) return sample;
  const message = `${validation[1]}: ${error.field} ${error.message}.`;
  return { ...sample, message, body: { ...sample.body, message, errors: [error] } };
}

/** A route with `config.etag` (conditional.ts): the tag on its success, If-None-Match, and the 304. */
const ETAG_HEADER = {
  ETag: {
    type: 'string',
    description: 'Strong tag of this answer: send it in If-None-Match to read the resource again.',
  },
};

const IF_NONE_MATCH = {
  type: 'string',
  description: 'Tags held (a list, `W/` compared weakly, or `*`): a current one answers 304 with no body.',
};

const NOT_MODIFIED = {
  type: 'null',
  description:
    'Not Modified: If-None-Match holds the current tag; no body, and no request of the budget spent.',
  headers: { ...ETAG_HEADER, ...RATE_LIMIT_HEADERS },
};

/** The route's header parameters with If-None-Match added. */
function withIfNoneMatch(headers: Schema | undefined): Schema {
  return {
    ...headers,
    type: 'object',
    properties: { ...headers?.properties, 'if-none-match': IF_NONE_MATCH },
  };
}

const isSuccess = (status: string) => /^[23]/.test(status);

function declaredFor(declared: Schema, status: number): Schema | undefined {
  return declared[status] ?? declared[`${String(status)[0]}xx`] ?? declared[`${String(status)[0]}XX`];
}

function responses(schema: Schema, route: RouteOptions): Schema {
  const declared: Schema = schema.response ?? {};
  const scope = route.config?.scope;
  const credential = Boolean(scope) || route.config?.anyCredential === true;
  const result: Schema = {};
  for (const [status, body] of Object.entries(declared)) {
    if (!isSuccess(status)) continue;
    const description = status === '201' ? 'Created' : 'OK';
    // A named body is a bare $ref, whose siblings @fastify/swagger reads only as `description`.
    const described = body.$ref
      ? { description, ...body }
      : { 'x-response-description': description, ...body };
    const tagged = route.config?.etag && status.startsWith('2') ? ETAG_HEADER : {};
    result[status] = credential
      ? { ...described, headers: { ...body.headers, ...tagged, ...RATE_LIMIT_HEADERS } }
      : described;
  }
  if (route.config?.etag) result[304] = NOT_MODIFIED;
  const keys = [
    ...standardKeys(schema, scope, route.config?.anyCredential === true),
    ...(route.config?.errorKeys ?? []),
  ];
  for (const [status, samples] of byStatus(APP_ERRORS, keys)) {
    const own = samples.map((sample) => forRoute(sample, schema));
    result[status] = errorResponse(own, declaredFor(declared, status), 'key');
  }
  // A declared error status no key documents keeps its schema and gains the error-id header.
  for (const [status, body] of Object.entries(declared)) {
    if (isSuccess(status) || /x/i.test(status) || result[status]) continue;
    result[status] = { ...body, headers: headerSchemas(['x-error-id']) };
  }
  return result;
}

function tagOf(url: string): string {
  return url.split('/').filter((part) => part && part !== 'v1')[0] ?? 'default';
}

export function describeRoute({ schema, url, route }: { schema: Schema; url: string; route: RouteOptions }) {
  if (HIDDEN.some((pattern) => pattern.test(url))) return { schema: { ...schema, hide: true }, url };
  // Named resources become $refs to components.schemas (schema-names.ts); the validation examples
  // still read the route's own body.
  const declared: Schema = { ...schema, response: referenced(schema.response) };
  const described: Schema = { ...declared, tags: schema?.tags ?? [tagOf(url)] };
  if (schema.body) described.body = referenced(schema.body);
  if (route.config?.etag) described.headers = withIfNoneMatch(schema.headers);
  if (url.startsWith('/oauth/')) return { schema: describeOAuthRoute(described, url), url };
  const scope = route.config?.scope;
  if (scope) described.security = [...[scope].flat().map((s) => ({ oauth2: [s] })), { bearer: [] }];
  else if (route.config?.anyCredential) described.security = [{ oauth2: [] }, { bearer: [] }];
  described.response = responses(declared, route);
  return { schema: described, url };
}
