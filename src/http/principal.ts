// Who is calling. Resolved once per request by authenticate.ts.
import type { Restaurant } from '../db/restaurant-state.ts';

/** Who holds an access token: what modules/auth/access-tokens.ts reads with the token. */
export type TokenBearer = {
  apiKeyId: number | null;
  apiKeyName: string | null;
  oauthClientId: number | null;
  clientId: string | null;
  restaurantIds: number[];
  scopes: string[];
};

export type Principal =
  | ({ kind: 'api_key' | 'oauth_client'; tokenId: string } & TokenBearer)
  | { kind: 'restaurant_session'; sessionId: string; restaurantIds: [number]; scopes: [] };

export type Scope =
  | 'products:read'
  | 'products:write'
  | 'menu:read'
  | 'financial:read'
  | 'nfe-received:read'
  | 'webhooks:read'
  | 'webhooks:write';

export const SCOPES: Scope[] = [
  'products:read',
  'products:write',
  'menu:read',
  'financial:read',
  'nfe-received:read',
  'webhooks:read',
  'webhooks:write',
];

/** A stable, secret-free description of the caller, for logs, rate-limit keys and change history. */
export function describePrincipal(p: Principal): Record<string, unknown> {
  if (p.kind === 'restaurant_session') return { kind: p.kind, session_id: p.sessionId };
  if (p.kind === 'api_key') return { kind: p.kind, api_key_id: p.apiKeyId, api_key_name: p.apiKeyName };
  return { kind: p.kind, client_id: p.clientId };
}

/** The rate-limit unit: a key, a session, or an application's installation at one restaurant. */
export function principalKey(p: Principal): string {
  if (p.kind === 'restaurant_session') return `session:${p.sessionId}`;
  if (p.kind === 'api_key') return `api_key:${p.apiKeyId}`;
  // A public application installed at many restaurants must not share one limit among them.
  const [only, ...more] = p.restaurantIds;
  return more.length ? `client:${p.clientId}` : `client:${p.clientId}:${only}`;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    restaurantId: number;
    /** The request's restaurant and its state (src/db/restaurant-state.ts), on routes with a scope. */
    restaurant: Restaurant;
  }
  interface FastifyContextConfig {
    /**
     * The scope a data route needs (a list: any one of them); routes with a scope require a
     * bearer credential.
     */
    scope?: Scope | readonly Scope[];
    /** A route every valid credential may call, whatever its scopes, without a restaurant (GET /v1/me). */
    anyCredential?: boolean;
  }
}
