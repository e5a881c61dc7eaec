// POST /oauth/token (contract 4.1, RFC 6749 3.2 and 5): a checklist of named steps, then the
// grant named by grant_type, found in a map.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { oauthErrors } from '../../http/errors.ts';
import type { Grant } from './grants/grant.ts';
import { GRANTS } from './grants/index.ts';
import type { TokenResponse } from './token-issuer.ts';
import { readForm, singleValued, type TokenParams, tokenRateKey } from './token-request.ts';

/** RFC 6749 5.1: no token response is ever cached (errors get the same in error-handler.ts). */
function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
}

async function limitRate(request: FastifyRequest, form: URLSearchParams): Promise<void> {
  const decision = await request.server.rateLimits.token.hit(tokenRateKey(request, form));
  if (decision && !decision.allowed) throw oauthErrors.rateLimited(decision.resetSeconds);
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
        `The parameter ${name} is not accepted with grant_type=${grant.grantType}.`,
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
  const form = readForm(request);
  await limitRate(request, form);
  const params = singleValued(form);
  const grant = grantOf(params);
  rejectForeignParameters(grant, params, request);
  return grant.handle({ ctx: request.server.ctx, params, request, now: new Date() });
}
