// What every grant file exports, so the token endpoint dispatches through a map.
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../../context.ts';
import type { TokenResponse } from '../token-issuer.ts';
import type { TokenParams } from '../token-request.ts';

/** Whose credential a request proved: an API key, or an OAuth client at its restaurants. */
export type GrantOwner = { apiKeyId: number | null; oauthClientId: number | null; restaurantIds: number[] };

export type GrantInput = {
  ctx: AppContext;
  params: TokenParams;
  request: FastifyRequest;
  now: Date;
  /** Called once the credential is proven, before anything is issued: spends its budget (429). */
  prove(owner: GrantOwner): Promise<void>;
};

export type Grant = {
  grantType: string;
  /** The parameters besides grant_type this grant takes; any other one is invalid_request. */
  parameters: readonly string[];
  /** Client authentication in the Authorization header (Basic); without it that header is refused. */
  basicAuth?: true;
  handle(input: GrantInput): Promise<TokenResponse>;
};

/** The internal reason goes to the log; the client only learns `invalid_grant`. */
export type Refusal = { refused: string };
