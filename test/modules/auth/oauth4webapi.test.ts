// An independent client (oauth4webapi) drives client_credentials and the whole PKCE flow
// over a real socket.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { buildTestApp } from '../../support/app.ts';
import { sessionFor } from '../../support/tokens.ts';
import { protectedRoute, REDIRECT_URI as REDIRECT, seedClients, seedRestaurants } from './support.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

test('oauth4webapi against the running server', async (t) => {
  const { app, ctx } = await buildTestApp(t, { routes: protectedRoute });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const secret = 'erp secret+with/odd:characters';
  await seedClients(ctx.db, [r1], secret);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const as: oauth.AuthorizationServer = {
    issuer: base,
    token_endpoint: `${base}/oauth/token`,
    authorization_endpoint: `${base}/oauth/authorize`,
  };
  const whoami = async (accessToken: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}/v1/test/whoami`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  await t.test('client_credentials with client_secret_basic', async () => {
    const client: oauth.Client = { client_id: 'erp' };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(secret),
      { scope: 'products:read' },
      insecure,
    );
    const tokens = await oauth.processClientCredentialsResponse(as, client, response);
    assert.equal(tokens.token_type, 'bearer');
    assert.equal(tokens.scope, 'products:read');
    assert.equal(tokens.refresh_token, undefined);
    assert.deepEqual(await whoami(tokens.access_token), {
      status: 200,
      body: { restaurant_id: r1, kind: 'oauth_client' },
    });
  });

  await t.test('client_credentials with client_secret_post', async () => {
    const client: oauth.Client = { client_id: 'erp' };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(secret),
      {},
      insecure,
    );
    assert.equal(
      (await oauth.processClientCredentialsResponse(as, client, response)).scope,
      'products:read menu:read',
    );
  });

  await t.test('authorization code with PKCE, then a refresh with client_id', async () => {
    const client: oauth.Client = { client_id: 'pos-app' };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope: 'products:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const approval = await fetch(url, {
      redirect: 'manual',
      headers: sessionFor(r1, ctx.secrets.sessionSecret),
    });
    assert.equal(approval.status, 302);
    const callback = oauth.validateAuthResponse(
      as,
      client,
      new URL(approval.headers.get('location')!),
      state,
    );
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      callback,
      REDIRECT,
      verifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(tokens.scope, 'products:read');
    assert.equal((await whoami(tokens.access_token)).body.restaurant_id, r1);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure),
    );
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal((await whoami(refreshed.access_token)).status, 200);
    const replay = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      tokens.refresh_token!,
      insecure,
    );
    await assert.rejects(
      oauth.processRefreshTokenResponse(as, client, replay),
      (err: oauth.ResponseBodyError) => {
        assert.equal(err.error, 'invalid_grant');
        return true;
      },
    );
    assert.equal((await whoami(refreshed.access_token)).status, 401, 'the replay revoked the family');
  });

  await t.test('an authorization error comes back to the redirect URI with the state', async () => {
    const client: oauth.Client = { client_id: 'pos-app' };
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: 'pos-app',
      redirect_uri: REDIRECT,
      state,
    }).toString();
    const denied = await fetch(url, { redirect: 'manual' });
    assert.throws(
      () => oauth.validateAuthResponse(as, client, new URL(denied.headers.get('location')!), state),
      (err: oauth.AuthorizationResponseError) => err.error === 'invalid_request',
    );
  });
});
