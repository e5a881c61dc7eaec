// Bearer authentication, scope check and the one restaurant resolution of every data route.
// Runs at onRequest, so a caller without a valid credential learns nothing about the body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { ACCESS_TOKEN_PREFIX, findActiveAccessToken } from '../modules/auth/access-tokens.ts';
import { looksLikeSession, verifySession } from '../modules/auth/session-token.ts';
import { errors } from './errors.ts';
import { type Principal, principalKey, type Scope } from './principal.ts';
import type { RateLimiter } from './rate-limit.ts';

const MAX_RESTAURANT_ID = 2147483647;

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  // The scheme is case-insensitive (RFC 7235 2.1); the token is RFC 6750's b64token.
  const match = header ? /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header) : null;
  if (!match) throw errors.invalidToken('Send the access token as "Authorization: Bearer <token>".');
  return match[1];
}

function rejectTokenInUrl(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown>;
  if (query && ('access_token' in query || 'api_key' in query || 'refresh_token' in query)) {
    throw errors.invalidToken('Credentials are never accepted in the URL.');
  }
}

async function loadPrincipal(db: Db, token: string, sessionSecret: string): Promise<Principal> {
  if (looksLikeSession(token)) {
    const claims = verifySession(token, sessionSecret);
    if (!claims || (await sessionEnded(db, claims.jti))) throw errors.invalidToken();
    return {
      kind: 'restaurant_session',
      sessionId: claims.jti,
      restaurantIds: [claims.restaurant_id],
      scopes: [],
    };
  }
  // API keys and refresh tokens are never accepted as Bearer (contract 5.1).
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) throw errors.invalidToken();
  const found = await findActiveAccessToken(db, token);
  if (!found) throw errors.invalidToken();
  return { kind: found.apiKeyId ? 'api_key' : 'oauth_client', tokenId: found.id, ...found };
}

/** A console sign-in that was signed out (or replaced by a password change) ends its session at once. */
async function sessionEnded(db: Db, jti: string): Promise<boolean> {
  const row = await db
    .selectFrom('console_sessions')
    .select('id')
    .where('id', '=', jti)
    .where('ended_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Per credential, before the scope check, so refused calls count too. */
async function enforceRateLimit(limiter: RateLimiter, principal: Principal, reply: FastifyReply) {
  const decision = await limiter.hit(principalKey(principal));
  if (!decision) return;
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.resetSeconds);
  if (!decision.allowed) throw errors.rateLimited(decision.resetSeconds);
}

function checkScope(principal: Principal, scope: Scope): void {
  if (principal.kind === 'restaurant_session') return;
  if (!principal.scopes.includes(scope)) throw errors.insufficientScope(scope);
}

export function resolveRestaurant(principal: Principal, requested: unknown): number {
  let wanted: number | undefined;
  if (requested !== undefined) {
    const text = String(requested);
    if (!/^[1-9]\d{0,9}$/.test(text) || Number(text) > MAX_RESTAURANT_ID) {
      throw errors.invalidQuery('restaurant_id must be a positive integer.', [
        { field: 'restaurant_id', message: 'must be a positive integer' },
      ]);
    }
    wanted = Number(text);
  }
  const allowed = principal.restaurantIds;
  if (wanted === undefined) {
    if (allowed.length === 1) return allowed[0];
    throw errors.restaurantIdRequired();
  }
  if (!allowed.includes(wanted)) throw errors.restaurantForbidden();
  return wanted;
}

export function installAuthentication(app: FastifyInstance, db: Db, sessionSecret: string): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('restaurantId', 0);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config?.scope;
    if (!scope) return;
    rejectTokenInUrl(request);
    const principal = await loadPrincipal(db, bearerToken(request), sessionSecret);
    request.principal = principal;
    await enforceRateLimit(app.rateLimits.data, principal, reply);
    checkScope(principal, scope);
    request.restaurantId = resolveRestaurant(
      principal,
      (request.query as Record<string, unknown>)?.restaurant_id,
    );
  });
}
