import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { logCapture, newKey, postToken, seedRestaurants } from './support.ts';

test('the token endpoint request checks', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const [r1] = await seedRestaurants(ctx.db, 1);
  const key = await newKey(ctx.db, [r1]);
  const form = new URLSearchParams({ grant_type: 'api_key', api_key: key.api_key }).toString();
  const send = (payload: string | undefined, contentType?: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload,
      headers: contentType ? { 'content-type': contentType } : {},
    });
  const assertInvalidRequest = (res: Awaited<ReturnType<typeof send>>, error = 'invalid_request') => {
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error, error);
    assert.equal(typeof res.json().error_description, 'string');
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.equal(res.headers.pragma, 'no-cache');
  };

  await t.test('a form with a charset parameter is accepted', async () => {
    assert.equal((await send(form, 'application/x-www-form-urlencoded; charset=UTF-8')).statusCode, 200);
  });

  await t.test('a JSON body is 400 invalid_request', async () => {
    const json = JSON.stringify({ grant_type: 'api_key', api_key: key.api_key });
    assertInvalidRequest(await send(json, 'application/json'));
  });

  await t.test('a body without a content type is 400 invalid_request', async () => {
    assertInvalidRequest(await send(form));
  });

  await t.test('a text/plain body is 400 invalid_request', async () => {
    assertInvalidRequest(await send(form, 'text/plain'));
  });

  await t.test('an empty body is 400 invalid_request', async () => {
    assertInvalidRequest(await send(undefined));
    assertInvalidRequest(await send('', 'application/x-www-form-urlencoded'));
  });

  await t.test('a duplicated parameter is 400 invalid_request, even with the same value', async () => {
    assertInvalidRequest(await postToken(app, `${form}&api_key=${encodeURIComponent(key.api_key)}`));
    assertInvalidRequest(await postToken(app, `${form}&grant_type=api_key`));
  });

  await t.test('a form with a broken percent-escape is 400 invalid_request, not a wrong key', async () => {
    for (const body of ['grant_type=api_key&api_key=%zz', `${form}%`, `${form}%4`, 'grant_type=api_%g1key']) {
      const res = await send(body, 'application/x-www-form-urlencoded');
      assertInvalidRequest(res);
      assert.match(res.json().error_description, /two hexadecimal digits/);
    }
    assert.equal(
      (await send(`${form}&scope=menu%3Aread`, 'application/x-www-form-urlencoded')).statusCode,
      200,
    );
  });

  await t.test('a missing grant_type is 400 invalid_request', async () => {
    assertInvalidRequest(await postToken(app, { api_key: key.api_key }));
  });

  await t.test('an unsupported grant_type is 400 unsupported_grant_type', async () => {
    assertInvalidRequest(
      await postToken(app, { grant_type: 'password', username: 'a', password: 'b' }),
      'unsupported_grant_type',
    );
  });

  await t.test('a body over 64 KiB is 400 invalid_request', async () => {
    assertInvalidRequest(await postToken(app, `${form}&pad=${'x'.repeat(70 * 1024)}`));
  });

  await t.test('the token endpoint has no /v1 prefix', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/oauth/token', payload: form });
    assert.equal(res.statusCode, 404);
  });
});

test('a secret sent where a name belongs is never repeated in the answer or the log', async (t) => {
  const { logStream, text } = logCapture();
  const { app, ctx } = await buildTestApp(t, { logStream, config: { logLevel: 'info' } });
  const [r1] = await seedRestaurants(ctx.db, 1);
  const key = await newKey(ctx.db, [r1]);
  const pair = (await postToken(app, { grant_type: 'api_key', api_key: key.api_key })).json();
  const cases: [string, string, string][] = [
    // curl --data-urlencode "grant_type=api_key&api_key=$KEY": the whole form is one value.
    [
      `grant_type=${encodeURIComponent(`api_key&api_key=${key.api_key}`)}`,
      'unsupported_grant_type',
      key.api_key,
    ],
    [`grant_type=${encodeURIComponent(pair.refresh_token)}`, 'unsupported_grant_type', pair.refresh_token],
    [`grant_type=refresh_token&${pair.refresh_token}=1`, 'invalid_request', pair.refresh_token],
    [
      `grant_type=refresh_token&${pair.access_token}=1&${pair.access_token}=2`,
      'invalid_request',
      pair.access_token,
    ],
    [
      `grant_type=api_key&api_key=${key.api_key}&scope=${encodeURIComponent(`menu:read ${pair.refresh_token}`)}`,
      'invalid_scope',
      pair.refresh_token,
    ],
  ];
  for (const [form, error, secret] of cases) {
    const res = await postToken(app, form);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().error, error);
    assert.ok(!res.body.includes(secret), `the answer repeats a secret: ${res.body}`);
    assert.ok(!res.body.includes(secret.slice(0, 12)), `the answer repeats part of a secret: ${res.body}`);
  }
  const log = text();
  assert.ok(log.includes('token endpoint error'), 'the log was captured');
  for (const secret of [key.api_key, pair.refresh_token, pair.access_token]) {
    assert.ok(!log.includes(secret), `a secret (${secret.slice(0, 8)}…) appears in the log`);
  }
  const named = await postToken(app, { grant_type: 'password', username: 'a', password: 'b' });
  assert.match(named.json().error_description, /"password"/, 'a plain grant type is still named');
  const param = await postToken(app, {
    grant_type: 'refresh_token',
    refresh_token: 'crt_x',
    scope: 'menu:read',
  });
  assert.match(param.json().error_description, /"scope"/, 'a plain parameter is still named');
});
