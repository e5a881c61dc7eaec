// Bearer authentication, scope check and the one restaurant resolution of every data route.
// Runs at onRequest, so a caller without a valid credential learns nothing about the body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.ts';
import { type RestaurantState, restaurantOf } from '../db/restaurant-state.ts';
import {
  ACCESS_TOKEN_PREFIX,
  type AccessTokenLookup,
  accessTokenLookup,
} from '../modules/auth/access-tokens.ts';
import { API_KEY_PREFIXES } from '../modules/auth/api-keys.ts';
import { checkSession } from '../modules/auth/session-check.ts';
import { looksLikeSession, verifySession } from '../modules/auth/session-token.ts';
import { errors } from './errors.ts';
import { type Principal, principalKey, type Scope } from './principal.ts';
import type { RateDecision, RateLimiter } from './rate-limit.ts';
import { givenMoreThanOnce, repeatedParameters } from './validation.ts';

const MAX_RESTAURANT_ID = 2147483647;

const API_KEY_AS_BEARER =
  'An API key is not an access token: exchange it at POST /oauth/token (grant_type=api_key) and send the access_token it answers as "Authorization: Bearer <token>".';

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

type Authenticated = { principal: Principal; restaurant?: { id: number; state: RestaurantState } };

async function authenticate(
  db: Db,
  findToken: AccessTokenLookup,
  token: string,
  sessionSecret: string,
  restaurantId: number | null,
): Promise<Authenticated> {
  if (looksLikeSession(token)) {
    const claims = verifySession(token, sessionSecret);
    if (!claims) throw errors.invalidToken();
    const { ended, restaurant } = await checkSession(db, claims.jti, claims.restaurant_id);
    if (ended) throw errors.invalidToken();
    const principal: Principal = {
      kind: 'restaurant_session',
      sessionId: claims.jti,
      restaurantIds: [claims.restaurant_id],
      scopes: [],
    };
    return { principal, restaurant };
  }
  // API keys and refresh tokens are never accepted as Bearer (contract 5.1); an API key is told
  // where it goes instead.
  if (Object.values(API_KEY_PREFIXES).some((prefix) => token.startsWith(prefix))) {
    throw errors.invalidToken(API_KEY_AS_BEARER);
  }
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) throw errors.invalidToken();
  const found = await findToken(token, restaurantId);
  if (!found) throw errors.invalidToken();
  const { token: active, restaurant } = found;
  return {
    principal: { kind: active.apiKeyId ? 'api_key' : 'oauth_client', tokenId: active.id, ...active },
    restaurant,
  };
}

function budgetHeaders(reply: FastifyReply, decision: RateDecision): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', decision.resetSeconds);
}

/** Per credential, before the scope check, so refused calls count too. */
async function enforceRateLimit(limiter: RateLimiter, principal: Principal, reply: FastifyReply) {
  const decision = await limiter.hit(principalKey(principal));
  if (!decision) return;
  budgetHeaders(reply, decision);
  if (!decision.allowed) throw errors.rateLimited(decision.resetSeconds);
}

/** Spends the request's budget now: for a conditional read that is not answered 304 (conditional.ts). */
export async function spendBudget(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.principal) await enforceRateLimit(request.server.rateLimits.data, request.principal, reply);
}

/** The budget left, unspent: the X-RateLimit-* headers of a 304. */
export async function showBudget(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!request.principal) return;
  const decision = await request.server.rateLimits.data.peek(principalKey(request.principal));
  if (decision) budgetHeaders(reply, decision);
}

/** A conditional read of a route with an ETag spends its budget once its tag is known. */
const defersBudget = (request: FastifyRequest): boolean =>
  request.routeOptions.config?.etag !== undefined && request.headers['if-none-match'] !== undefined;

function checkScope(principal: Principal, scope: Scope | readonly Scope[]): void {
  if (principal.kind === 'restaurant_session') return;
  const anyOf = [scope].flat();
  if (!anyOf.some((s) => principal.scopes.includes(s))) throw errors.insufficientScope(anyOf.join(' or '));
}

/** The query's restaurant_id: undefined when absent, null when it is not a restaurant id. */
function requestedRestaurant(requested: unknown): number | null | undefined {
  if (requested === undefined) return undefined;
  const text = String(requested);
  return /^[1-9]\d{0,9}$/.test(text) && Number(text) <= MAX_RESTAURANT_ID ? Number(text) : null;
}

function resolveRestaurant(principal: Principal, requested: unknown): number {
  // Read here, before the schema checks the query: a repeated one is answered as validation.ts
  // answers every repeated query parameter.
  if (givenMoreThanOnce(requested)) throw repeatedParameters(['restaurant_id']);
  const wanted = requestedRestaurant(requested);
  if (wanted === null) {
    throw errors.invalidQuery('restaurant_id must be a positive integer.', [
      { field: 'restaurant_id', message: 'must be a positive integer' },
    ]);
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
  // Set by the hook below on every route with a scope, the only routes that read it.
  app.decorateRequest('restaurant', null as never);
  const findToken = accessTokenLookup(db);
  app.addHook('onRequest', async (request, reply) => {
    const scope = request.routeOptions.config?.scope;
    const anyCredential = request.routeOptions.config?.anyCredential === true;
    if (!scope && !anyCredential) return;
    rejectTokenInUrl(request);
    const requested = (request.query as Record<string, unknown>)?.restaurant_id;
    const token = bearerToken(request);
    const { principal, restaurant } = await authenticate(
      db,
      findToken,
      token,
      sessionSecret,
      requestedRestaurant(requested) ?? null,
    );
    request.principal = principal;
    if (defersBudget(request)) request.budgetDeferred = true;
    else await enforceRateLimit(app.rateLimits.data, principal, reply);
    if (!scope) return;
    checkScope(principal, scope);
    const id = resolveRestaurant(principal, requested);
    request.restaurantId = id;
    request.restaurant = restaurantOf(db, id, restaurant?.id === id ? restaurant.state : undefined);
  });
}
