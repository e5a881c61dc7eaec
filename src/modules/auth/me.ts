// GET /v1/me: the credential in use, as any valid access token or restaurant session sees it: its
// kind, name and environment, its scopes, when the token expires, and the restaurants it can act
// for. Needs no scope and no restaurant_id, so a partner key finds every id it needs here.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../../db/database.ts';
import { nullable } from '../../http/nullable.ts';
import type { Principal } from '../../http/principal.ts';
import { nameSchema } from '../../http/schema-names.ts';
import { verifySession } from './session-token.ts';

const Me = nameSchema(
  'Me',
  Type.Object(
    {
      kind: Type.Union([
        Type.Literal('api_key'),
        Type.Literal('oauth_client'),
        Type.Literal('restaurant_session'),
      ]),
      name: nullable(Type.String(), {
        description:
          "The API key's or application's name; a console session's staff email; null for a CLI session.",
      }),
      environment: nullable(Type.Union([Type.Literal('test'), Type.Literal('live')]), {
        description: "An API key's environment (its prefix); null for applications and sessions.",
      }),
      scopes: Type.Array(Type.String(), { description: 'Empty for a restaurant session (it needs none).' }),
      expires_at: Type.String({
        format: 'date-time',
        description: 'When this access token or session expires.',
      }),
      restaurants: Type.Array(
        Type.Object({ id: Type.Integer(), name: Type.String(), timezone: Type.String() }),
        { description: 'The restaurants it can act for, in id order: the restaurant_id values it may send.' },
      ),
    },
    { additionalProperties: false },
  ),
);

type Identity = { name: string | null; environment: 'test' | 'live' | null; expiresAt: Date };

async function identify(
  db: Db,
  principal: Principal,
  request: FastifyRequest,
  secret: string,
): Promise<Identity> {
  if (principal.kind === 'restaurant_session') {
    const token = request.headers.authorization!.replace(/^Bearer +/i, '');
    // Read for its claims: the authentication checked its expiry, which the clock may have passed since.
    const claims = verifySession(token, secret, 0)!;
    const staff = await db
      .selectFrom('console_sessions as s')
      .innerJoin('staff_users as u', 'u.id', 's.staff_user_id')
      .select('u.email')
      .where('s.id', '=', claims.jti)
      .executeTakeFirst();
    return { name: staff?.email ?? null, environment: null, expiresAt: new Date(claims.exp * 1000) };
  }
  const token = await db
    .selectFrom('access_tokens as t')
    .leftJoin('api_keys as k', 'k.id', 't.api_key_id')
    .leftJoin('oauth_clients as c', 'c.id', 't.oauth_client_id')
    .select(['t.expires_at', 'k.name as key_name', 'k.environment', 'c.name as client_name'])
    .where('t.id', '=', principal.tokenId)
    .executeTakeFirstOrThrow();
  return {
    name: token.key_name ?? token.client_name,
    environment: token.environment,
    expiresAt: new Date(token.expires_at),
  };
}

export function meRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/v1/me',
    {
      config: { anyCredential: true },
      schema: {
        summary: 'The credential in use: its kind, scopes, expiry and the restaurants it can act for',
        operationId: 'getMe',
        tags: ['oauth'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Me },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { db, secrets } = app.ctx;
      const [identity, restaurants] = await Promise.all([
        identify(db, principal, request, secrets.sessionSecret),
        principal.restaurantIds.length === 0
          ? []
          : db
              .selectFrom('restaurants')
              .select(['id', 'name', 'timezone'])
              .where('id', 'in', principal.restaurantIds)
              .orderBy('id')
              .execute(),
      ]);
      return {
        kind: principal.kind,
        name: identity.name,
        environment: identity.environment,
        scopes: principal.scopes,
        expires_at: identity.expiresAt.toISOString(),
        restaurants,
      };
    },
  );
}
