// grant_type=client_credentials (RFC 6749 4.4) for confidential clients: an access token for
// the restaurants the client is installed for, and no refresh token (4.4.3).
import { oauthErrors } from '../../../http/errors.ts';
import { authenticateClient } from '../oauth-clients.ts';
import { narrowScopes } from '../scopes.ts';
import { issueAccessOnly } from '../token-issuer.ts';
import type { Grant } from './grant.ts';

export const clientCredentialsGrant: Grant = {
  grantType: 'client_credentials',
  parameters: ['scope', 'client_id', 'client_secret'],
  basicAuth: true,
  async handle({ ctx, params, request, now, prove }) {
    const client = await authenticateClient(ctx.db, request, params);
    await prove({ apiKeyId: null, oauthClientId: client.id, restaurantIds: client.restaurantIds });
    if (!client.grantTypes.includes('client_credentials')) {
      throw oauthErrors.unauthorizedClient('This client may not use the client_credentials grant.');
    }
    if (!client.restaurantIds.length) {
      throw oauthErrors.unauthorizedClient('This client is not installed for any restaurant.');
    }
    const scopes = narrowScopes(params.get('scope'), client.scopes);
    const grant = { apiKeyId: null, oauthClientId: client.id, restaurantIds: client.restaurantIds, scopes };
    return issueAccessOnly(ctx.db, ctx.config, grant, now);
  },
};
