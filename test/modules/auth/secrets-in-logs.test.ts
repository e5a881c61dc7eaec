import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { sessionFor } from '../../support/tokens.ts';
import {
  logCapture,
  newKey,
  postToken,
  protectedRoute,
  REDIRECT_URI as redirect,
  seedClients,
  seedRestaurants,
} from './support.ts';

test('no secret reaches a log line', async (t) => {
  const { logStream, text } = logCapture();
  const { app, ctx } = await buildTestApp(t, {
    routes: protectedRoute,
    logStream,
    config: { logLevel: 'info' },
  });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const key = await newKey(ctx.db, [r1]);
  const clientSecret = `secret-${randomBytes(16).toString('hex')}`;
  await seedClients(ctx.db, [r1], clientSecret);
  const secrets: string[] = [key.api_key, clientSecret];
  const keep = (...values: string[]) => secrets.push(...values);

  const pair = (await postToken(app, { grant_type: 'api_key', api_key: key.api_key })).json();
  keep(pair.access_token, pair.refresh_token);
  const next = (
    await postToken(app, { grant_type: 'refresh_token', refresh_token: pair.refresh_token })
  ).json();
  keep(next.access_token, next.refresh_token);
  await app.inject({ url: '/v1/test/whoami', headers: { authorization: `Bearer ${next.access_token}` } });
  await app.inject({ url: `/v1/test/whoami?access_token=${next.access_token}` });
  await postToken(app, { grant_type: 'api_key', api_key: `${key.api_key}x` });
  await postToken(app, { grant_type: 'api_key', api_key: key.api_key, client_secret: clientSecret });
  await postToken(app, {
    grant_type: 'client_credentials',
    client_id: 'erp',
    client_secret: `${clientSecret}x`,
  });
  const cc = (
    await postToken(app, { grant_type: 'client_credentials', client_id: 'erp', client_secret: clientSecret })
  ).json();
  keep(cc.access_token);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'pos-app',
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const session = sessionFor(r1, ctx.secrets.sessionSecret);
  const authorized = await app.inject({ url: `/oauth/authorize?${query}`, headers: session });
  const code = new URL(String(authorized.headers.location)).searchParams.get('code')!;
  keep(code, verifier, session.authorization.slice(7));
  const exchange = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirect,
    client_id: 'pos-app',
    code_verifier: verifier,
  };
  keep((await postToken(app, exchange)).json().refresh_token);
  await postToken(app, exchange);
  await postToken(app, { grant_type: 'refresh_token', refresh_token: pair.refresh_token });

  const log = text();
  assert.ok(
    log.includes('refresh refused') && log.includes('client authentication failed'),
    'the log was captured',
  );
  for (const secret of secrets) {
    assert.ok(secret && !log.includes(secret), `a secret (${secret.slice(0, 8)}…) appears in the log`);
  }
});
