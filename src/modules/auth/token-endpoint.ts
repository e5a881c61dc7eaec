// POST /oauth/token (contract 4.1, RFC 6749 3.2 and 5): a checklist of named steps, then the
// grant named by grant_type, found in a map.
// Two budgets per window: the caller's address counts every attempt until it proves a
// credential (a proven one is given back), so guessers and forged client_ids run out while an
// honest caller exchanging many keys from one address never does; a proven credential (a key,
// or an application's installation) counts each request it makes. Keys are ids and addresses,
// never what the request claims.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { limitAddress } from '../../http/client-address.ts';
import { oauthErrors, requestName } from '../../http/errors.ts';
import type { RateDecision, RateLimiter } from '../../http/rate-limit.ts';
import type { Grant, GrantOwner } from './grants/grant.ts';
import { GRANTS } from './grants/index.ts';
import type { TokenResponse } from './token-issuer.ts';
import { readForm, singleValued, type TokenParams } from './token-request.ts';

/** RFC 6749 5.1: no token response is ever cached (errors get the same in error-handler.ts). */
function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
}

/** Counts one request for `key`: the window it was counted in, null when the store did not answer. */
async function spend(limiter: RateLimiter, key: string): Promise<RateDecision | null> {
  const decision = await limiter.hit(key);
  if (decision && !decision.allowed) throw oauthErrors.rateLimited(decision.resetSeconds);
  return decision;
}

/** The credential's budget: an API key, or an application at its one restaurant (as data routes). */
function ownerKey(owner: GrantOwner): string {
  if (owner.apiKeyId !== null) return `api_key:${owner.apiKeyId}`;
  const [only, ...more] = owner.restaurantIds;
  return more.length || only === undefined
    ? `client:${owner.oauthClientId}`
    : `client:${owner.oauthClientId}:${only}`;
}

function grantOf(params: TokenParams): Grant {
  const grantType = params.get('grant_type');
  if (!grantType) throw oauthErrors.invalidRequest('The grant_type parameter is required.');
  const grant = GRANTS.get(grantType);
  if (!grant) throw oauthErrors.unsupportedGrantType(grantType);
  return grant;
}

/** Mixed credentials are refused, never ignored: each grant takes only its own parameters. */
function rejectForeignParameters(grant: Grant, params: TokenParams, request: FastifyRequest): void {
  for (const name of params.keys()) {
    if (name !== 'grant_type' && !grant.parameters.includes(name)) {
      throw oauthErrors.invalidRequest(
        `The parameter ${requestName(name)} is not accepted with grant_type=${grant.grantType}.`,
      );
    }
  }
  if (request.headers.authorization !== undefined && !grant.basicAuth) {
    throw oauthErrors.invalidRequest(
      `No Authorization header is accepted with grant_type=${grant.grantType}.`,
    );
  }
}

export async function tokenEndpoint(request: FastifyRequest, reply: FastifyReply): Promise<TokenResponse> {
  noStore(reply);
  const limiter = request.server.rateLimits.token;
  const address = `address:${limitAddress(request.ip)}`;
  const counted = await spend(limiter, address);
  let proven = false;
  const prove = async (owner: GrantOwner) => {
    proven = true;
    await spend(limiter, ownerKey(owner));
  };
  try {
    const params = singleValued(readForm(request));
    const grant = grantOf(params);
    rejectForeignParameters(grant, params, request);
    return await grant.handle({ ctx: request.server.ctx, params, request, now: new Date(), prove });
  } finally {
    // Given back to the window it was counted in, never to the next one.
    if (proven && counted) await limiter.refund(address, counted.windowEnd);
  }
}
