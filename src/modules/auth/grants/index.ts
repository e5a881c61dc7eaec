// The grants of the token endpoint, by grant_type.
import { apiKeyGrant } from './api-key.ts';
import { authorizationCodeGrant } from './authorization-code.ts';
import { clientCredentialsGrant } from './client-credentials.ts';
import type { Grant } from './grant.ts';
import { refreshTokenGrant } from './refresh-token.ts';

export const GRANTS: ReadonlyMap<string, Grant> = new Map(
  [apiKeyGrant, refreshTokenGrant, clientCredentialsGrant, authorizationCodeGrant].map((grant) => [
    grant.grantType,
    grant,
  ]),
);
