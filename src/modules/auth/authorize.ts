// GET /oauth/authorize (RFC 6749 4.1.1, RFC 7636 4.3): a restaurant session, sent as
// `Authorization: Bearer <session>`, is the approval of an installed public application for
// the session's restaurant. Until the client and its exact redirect URI are known, errors are
// answered here and never redirected (4.1.2.1); after that they go back with `state`.
// A person in a browser approves on the console's consent page instead (src/modules/console/),
// which reuses these checks.
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { OAuthError, oauthErrors } from '../../http/errors.ts';
import type { Scope } from '../../http/principal.ts';
import { CHALLENGE_SYNTAX, createCode } from './authorization-codes.ts';
import { type ClientCredential, findClient } from './oauth-clients.ts';
import { narrowScopes } from './scopes.ts';
import { checkSession } from './session-check.ts';
import { verifySession } from './session-token.ts';

export type AuthorizeQuery = Partial<
  Record<
    | 'response_type'
    | 'client_id'
    | 'redirect_uri'
    | 'scope'
    | 'state'
    | 'code_challenge'
    | 'code_challenge_method',
    string
  >
>;

/** The client and its exact redirect URI; until both are known, errors are never redirected. */
export async function trustedClient(db: Db, query: AuthorizeQuery): Promise<ClientCredential> {
  const client = query.client_id ? await findClient(db, { clientId: query.client_id }) : null;
  if (!client?.usable) throw oauthErrors.invalidRequest('Unknown or revoked client_id.');
  if (!query.redirect_uri || !client.redirectUris.includes(query.redirect_uri)) {
    throw oauthErrors.invalidRequest('redirect_uri must be exactly one registered for the client.');
  }
  return client;
}

/** The restaurant of a valid session whose console sign-in was not ended (as on data routes). */
async function sessionRestaurant(db: Db, authorization: string | undefined, secret: string): Promise<number> {
  const token = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
  const claims = token ? verifySession(token, secret) : null;
  const live = claims && !(await checkSession(db, claims.jti, claims.restaurant_id)).ended;
  if (!live) throw oauthErrors.accessDenied('A valid restaurant session must approve the application.');
  return claims.restaurant_id;
}

/** The checks of the request itself, for a trusted client: the scopes it may be granted. */
export function checkRequest(client: ClientCredential, query: AuthorizeQuery): Scope[] {
  if (query.response_type !== 'code') throw oauthErrors.unsupportedResponseType();
  if (client.secretHash || !client.grantTypes.includes('authorization_code')) {
    throw oauthErrors.unauthorizedClient('This client may not use the authorization code flow.');
  }
  if (query.code_challenge_method !== 'S256' || !CHALLENGE_SYNTAX.test(query.code_challenge ?? '')) {
    throw oauthErrors.invalidRequest('PKCE is required: code_challenge with code_challenge_method=S256.');
  }
  return narrowScopes(query.scope, client.scopes);
}

async function approve(ctx: AppContext, client: ClientCredential, query: AuthorizeQuery, auth?: string) {
  const scopes = checkRequest(client, query);
  const restaurantId = await sessionRestaurant(ctx.db, auth, ctx.secrets.sessionSecret);
  if (!client.restaurantIds.includes(restaurantId)) {
    throw oauthErrors.accessDenied('The application is not installed for this restaurant.');
  }
  const code = { oauthClientId: client.id, restaurantId, scopes, redirectUri: query.redirect_uri! };
  return createCode(ctx.db, { ...code, codeChallenge: query.code_challenge! }, new Date());
}

/** The redirect URI of a trusted request with `code` or `error`, and `state` (RFC 6749 4.1.2). */
export function redirectWith(query: AuthorizeQuery, outcome: { code: string } | OAuthError): string {
  const target = new URL(query.redirect_uri!);
  if (outcome instanceof OAuthError) {
    target.searchParams.set('error', outcome.error);
    target.searchParams.set('error_description', outcome.message);
  } else target.searchParams.set('code', outcome.code);
  if (query.state) target.searchParams.set('state', query.state);
  return target.href;
}

/** Where to send the browser: the redirect URI with `code` or `error`, and `state`. */
export async function authorize(ctx: AppContext, query: AuthorizeQuery, auth?: string): Promise<string> {
  const client = await trustedClient(ctx.db, query);
  try {
    return redirectWith(query, { code: await approve(ctx, client, query, auth) });
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return redirectWith(query, err);
  }
}
