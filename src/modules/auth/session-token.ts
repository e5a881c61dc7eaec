// Restaurant sessions: HS256 JSON Web Tokens signed with RESTAURANT_SESSION_SECRET,
// carrying exactly one restaurant id. They have no integration scopes (contract 5.3).
import { createHmac, randomUUID } from 'node:crypto';
import { safeEqual } from '../../lib/secrets.ts';

type SessionClaims = {
  restaurant_id: number;
  iat: number;
  exp: number;
  jti: string;
  typ: 'restaurant_session';
};

/** Every session's jti is a UUID (its console_sessions row's key when signed in at the console). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(input: string, secret: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

export function signSession(
  restaurantId: number,
  ttlSeconds: number,
  secret: string,
  now = Date.now(),
): string {
  const iat = Math.floor(now / 1000);
  const claims: SessionClaims = {
    restaurant_id: restaurantId,
    iat,
    exp: iat + ttlSeconds,
    jti: randomUUID(),
    typ: 'restaurant_session',
  };
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${sign(body, secret)}`;
}

/** The claims of a valid, unexpired session token, or null. */
export function verifySession(token: string, secret: string, now = Date.now()): SessionClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return null;
  if (!safeEqual(parts[2], sign(`${parts[0]}.${parts[1]}`, secret))) return null;
  let claims: SessionClaims;
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (claims.typ !== 'restaurant_session' || !Number.isInteger(claims.restaurant_id)) return null;
  if (typeof claims.exp !== 'number' || claims.exp * 1000 <= now) return null;
  if (typeof claims.jti !== 'string' || !UUID.test(claims.jti)) return null;
  return claims;
}

export function looksLikeSession(token: string): boolean {
  return token.startsWith(`${HEADER}.`);
}
