// grant_type=api_key (contract 4.1): an API key, sent only here, for an access token and the
// first refresh token of a new family. Scope can only narrow the key's scopes.
import { oauthErrors } from '../../../http/errors.ts';
import { hashSecret } from '../../../lib/secrets.ts';
import { findApiKey, markApiKeyUsed } from '../api-key-lookup.ts';
import { environmentOf } from '../api-keys.ts';
import { narrowScopes } from '../scopes.ts';
import { startFamily } from '../token-issuer.ts';
import type { Grant } from './grant.ts';

export const apiKeyGrant: Grant = {
  grantType: 'api_key',
  parameters: ['api_key', 'scope'],
  async handle({ ctx, params, request, now, prove }) {
    const presented = params.get('api_key');
    if (!presented) throw oauthErrors.invalidRequest('The api_key parameter is required.');
    const environment = environmentOf(presented);
    const key = environment ? await findApiKey(ctx.db, { keyHash: hashSecret(presented) }, now) : null;
    // The prefix presented must be the key's environment (a live key never answers as test).
    if (!key || key.environment !== environment || !key.usable) {
      const reason = !key ? 'unknown key' : key.usable ? 'other environment' : 'revoked or expired';
      request.log.info({ api_key_id: key?.id, reason }, 'api key exchange refused');
      throw oauthErrors.invalidClient('The API key is invalid, expired, revoked or of another environment.');
    }
    await prove({ apiKeyId: key.id, oauthClientId: null, restaurantIds: key.restaurantIds });
    const scopes = narrowScopes(params.get('scope'), key.scopes);
    return ctx.db.transaction().execute(async (tx) => {
      const grant = { apiKeyId: key.id, oauthClientId: null, restaurantIds: key.restaurantIds, scopes };
      const { response } = await startFamily(tx, ctx.config, grant, now);
      // Last: every exchange of a key updates its one row, so the row lock is held only until commit.
      await markApiKeyUsed(tx, key.id, now);
      return response;
    });
  },
};
