// The token endpoint and the authorization endpoint, without the /v1 prefix (contract 9).
// Encapsulated: the body arrives as text whatever its type (the endpoint itself refuses
// anything but a form with invalid_request), and every client error keeps RFC 6749's shape.
import type { FastifyError, FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError, OAuthError, oauthErrors } from '../../http/errors.ts';
import { utf8Text } from '../../http/request-utf8.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { isBrowserApproval, showConsent } from '../console/consent.ts';
import { type AuthorizeQuery, authorize } from './authorize.ts';
import { tokenEndpoint } from './token-endpoint.ts';

const OAuthErrorBody = nameSchema(
  'TokenError',
  Type.Object(
    { error: Type.String(), error_description: Type.String() },
    { description: 'RFC 6749 5.2 error of the OAuth endpoints.' },
  ),
);

// Two shapes with every field required: the serializer writes required fields before optional
// ones, so an optional refresh_token would come after scope, out of contract 2.5's order.
const accessFields = {
  access_token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_in: Type.Integer({
    description: 'Access token lifetime in seconds (ACCESS_TOKEN_TTL_SECONDS).',
  }),
};
const scopeField = { scope: Type.String({ description: 'Space-separated scopes.' }) };

const TokenResponseBody = nameSchema(
  'TokenResponse',
  Type.Union(
    [
      Type.Object(
        {
          ...accessFields,
          refresh_token: Type.String({ description: 'Single use.' }),
          ...scopeField,
        },
        { additionalProperties: false },
      ),
      Type.Object(
        { ...accessFields, ...scopeField },
        { additionalProperties: false, description: 'client_credentials: no refresh token.' },
      ),
    ],
    {
      examples: [
        {
          access_token: 'cat_…',
          token_type: 'Bearer',
          expires_in: 900,
          refresh_token: 'crt_…',
          scope: 'products:read products:write menu:read',
        },
      ],
    },
  ),
);

const text = Type.Optional(Type.String());
const AuthorizeQuerySchema = Type.Object({
  response_type: text,
  client_id: text,
  redirect_uri: text,
  scope: text,
  state: text,
  code_challenge: text,
  code_challenge_method: text,
});

function asOAuthError(error: FastifyError): Error {
  if (error instanceof OAuthError) return error;
  if (error.validation) return oauthErrors.invalidRequest('A parameter is invalid or sent more than once.');
  // The catalogue's own 400s say what is wrong with the request (a body in a content coding, or not UTF-8).
  if (error instanceof AppError && error.statusCode === 400) return oauthErrors.invalidRequest(error.message);
  if (error.statusCode && error.statusCode < 500) return oauthErrors.invalidRequest('Malformed request.');
  return error;
}

export async function authRoutes(app: FastifyInstance): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, body, done) =>
    done(null, utf8Text(body as Buffer)),
  );
  // Rethrown to the app's error handler, which renders OAuth errors with no-store.
  app.setErrorHandler((error: FastifyError) => {
    throw asOAuthError(error);
  });
  app.post(
    '/oauth/token',
    {
      schema: {
        summary: 'Exchange an API key, a refresh token, client credentials or an authorization code',
        operationId: 'createToken',
        consumes: ['application/x-www-form-urlencoded'],
        response: { 200: TokenResponseBody, 400: OAuthErrorBody, 401: OAuthErrorBody, 429: OAuthErrorBody },
      },
    },
    tokenEndpoint,
  );
  app.get(
    '/oauth/authorize',
    {
      schema: {
        summary: 'Approve an installed application with a restaurant session (PKCE, S256)',
        operationId: 'authorizeApplication',
        querystring: AuthorizeQuerySchema,
        response: { 302: Type.Null(), 400: OAuthErrorBody },
      },
    },
    async (request, reply) => {
      if (isBrowserApproval(request)) return showConsent(request, reply);
      const target = await authorize(app.ctx, request.query as AuthorizeQuery, request.headers.authorization);
      reply.header('cache-control', 'no-store');
      return reply.redirect(target, 302);
    },
  );
}
