// The OAuth routes in the OpenAPI document. The token endpoint reads its form itself (no body
// schema validates it), so its request body is derived from the grants' own parameter lists;
// its errors keep RFC 6749's `{error, error_description}` shape, from the OAuth catalogue.
import { GRANTS } from '../modules/auth/grants/index.ts';
import { byStatus, errorResponse, headerSchemas, OAUTH_ERRORS } from './docs-errors.ts';

type Schema = Record<string, any>;

// `requiredIn`: the grants that answer invalid_request without the parameter.
const PARAMETERS: Record<string, { description: string; requiredIn?: string[] }> = {
  api_key: {
    description: 'The API key (`ck_live_…` or `ck_test_…`). Sent only in this exchange, never as a Bearer.',
    requiredIn: ['api_key'],
  },
  scope: { description: 'Space-separated scopes; can only narrow the scopes granted to the credential.' },
  refresh_token: {
    description:
      'The last refresh token received (`crt_…`). Single use: sending one twice revokes the whole family.',
    requiredIn: ['refresh_token'],
  },
  client_id: {
    description: 'An installed application (client credentials or PKCE); never with an API key.',
    requiredIn: ['authorization_code'],
  },
  client_secret: { description: 'The confidential client secret (or HTTP Basic authentication instead).' },
  code: {
    description: 'The authorization code from /oauth/authorize (single use, short-lived).',
    requiredIn: ['authorization_code'],
  },
  redirect_uri: {
    description: 'The redirect URI of the authorization request, exactly.',
    requiredIn: ['authorization_code'],
  },
  code_verifier: {
    description: 'The PKCE verifier of the S256 code_challenge (RFC 7636).',
    requiredIn: ['authorization_code'],
  },
};

const GRANT_DESCRIPTIONS: Record<string, string> = {
  api_key: 'Key exchange: an access token and the first refresh token of a new family.',
  refresh_token: 'Rotation: a new access token and a new refresh token; the one sent is consumed.',
  client_credentials: 'A confidential application: an access token only, no refresh token.',
  authorization_code: 'An installed public application after /oauth/authorize (PKCE S256).',
};

const TOKEN_DESCRIPTION = `Form-encoded (application/x-www-form-urlencoded), each parameter once, without /v1.
Key exchange: \`grant_type=api_key\`, \`api_key\` and an optional \`scope\`; no client_id, client_secret or
Authorization header. Refresh: only \`grant_type=refresh_token\` and \`refresh_token\`. A refresh token works
once: sending it again revokes its whole family and the access tokens of its key, so concurrent callers must
share one refresh, and a refresh that timed out may already have consumed the token. Compute expiry from each
answer's \`expires_in\` and refresh about 60 s before it. Answers are never cached (\`Cache-Control: no-store\`).`;

const AUTHORIZE_PARAMETERS: Record<string, string> = {
  response_type: 'Always `code`.',
  client_id: 'The installed application.',
  redirect_uri: 'Exactly one of the redirect URIs registered for the application.',
  scope: 'Space-separated scopes; at most those of the application.',
  state: 'Opaque value returned with the redirect (CSRF protection).',
  code_challenge: 'BASE64URL(SHA-256(code_verifier)) (RFC 7636).',
  code_challenge_method: 'Always `S256`.',
};

/** The route's query schema with a description on each parameter that has none. */
function describedQuery(query: Schema | undefined): Schema | undefined {
  if (!query?.properties) return query;
  const properties = Object.entries(query.properties as Record<string, Schema>).map(([name, property]) => [
    name,
    { description: AUTHORIZE_PARAMETERS[name], ...property },
  ]);
  return { ...query, properties: Object.fromEntries(properties) };
}

const TOKEN_ERROR_KEYS = [...OAUTH_ERRORS.keys()].filter(
  (key) => key !== 'access_denied' && key !== 'unsupported_response_type',
);
const AUTHORIZE_ERROR_KEYS = [
  'invalid_request',
  'invalid_scope',
  'access_denied',
  'unsupported_response_type',
];

function grantForm(grantType: string, parameters: readonly string[]): Schema {
  const known = parameters.filter((p) => PARAMETERS[p]);
  return {
    type: 'object',
    title: grantType,
    description: GRANT_DESCRIPTIONS[grantType],
    required: ['grant_type', ...known.filter((p) => PARAMETERS[p].requiredIn?.includes(grantType))],
    properties: {
      grant_type: { type: 'string', const: grantType },
      ...Object.fromEntries(
        known.map((p) => [p, { type: 'string', description: PARAMETERS[p].description }]),
      ),
    },
    additionalProperties: false,
  };
}

const TOKEN_BODY = {
  description: 'Form fields; each at most once. Parameters of another grant are refused (invalid_request).',
  oneOf: [...GRANTS.values()].map((grant) => grantForm(grant.grantType, grant.parameters)),
  'x-examples': {
    api_key: { summary: 'Key exchange', value: { grant_type: 'api_key', api_key: 'ck_test_…' } },
    refresh_token: { summary: 'Refresh', value: { grant_type: 'refresh_token', refresh_token: 'crt_…' } },
  },
};

/** A browser (no Authorization header) gets the console's sign-in or consent page instead. */
const CONSENT_PAGE = {
  description:
    'In a browser (no Authorization header; Accept text/html or a console session): the sign-in or consent page.',
  content: { 'text/html': { schema: { type: 'string' } } },
};

/**
 * A browser's refusal of GET /oauth/authorize (console/consent.ts): an unusable request is shown as
 * a page, not as the JSON error a Bearer caller gets; one with a trusted redirect_uri goes back to
 * it with 303.
 */
function alsoShownAsPage(error: Schema): Schema {
  const { 'x-response-description': description, 'x-examples': examples, headers, ...schema } = error;
  return {
    description: `${description}\n\nIn a browser: the refusal as a page (text/html).`,
    headers,
    content: {
      'application/json': { schema, examples },
      'text/html': { schema: { type: 'string' } },
    },
  };
}

const BROWSER_REDIRECT = {
  type: 'null',
  description:
    'In a browser: redirect to redirect_uri with `error` and `state` (a request it cannot use), or to the console to change the password first.',
  headers: { Location: { type: 'string', description: 'Where the browser goes next.' } },
};

function oauthResponses(declared: Schema, keys: string[]): Schema {
  const result: Schema = {};
  for (const [status, body] of Object.entries(declared)) {
    if (/^[23]/.test(status)) result[status] = body;
  }
  for (const [status, samples] of byStatus(OAUTH_ERRORS, keys)) {
    result[status] = errorResponse(samples, declared[status], 'error');
  }
  return result;
}

export function describeOAuthRoute(schema: Schema, url: string): Schema {
  const declared: Schema = schema.response ?? {};
  if (url === '/oauth/token') {
    const ok = declared[200];
    return {
      description: TOKEN_DESCRIPTION,
      ...schema,
      security: [],
      body: schema.body ?? TOKEN_BODY,
      response: {
        ...oauthResponses(declared, TOKEN_ERROR_KEYS),
        200: {
          description: 'The tokens (the example is in the TokenResponse schema).',
          ...ok,
          headers: headerSchemas(['cache-control']),
        },
      },
    };
  }
  const errors = oauthResponses(declared, AUTHORIZE_ERROR_KEYS);
  return {
    description:
      'A restaurant session (as Bearer, or the console in a browser) approves an installed application.',
    ...schema,
    querystring: describedQuery(schema.querystring),
    security: [{ bearer: [] }],
    response: {
      200: declared[200] ?? CONSENT_PAGE,
      ...errors,
      400: alsoShownAsPage(errors[400]),
      303: BROWSER_REDIRECT,
      302: {
        type: 'null',
        description: 'Redirect to redirect_uri with `code` and `state` (or `error` and `state`).',
        headers: { Location: { type: 'string', description: 'redirect_uri with the result in its query.' } },
      },
    },
  };
}
