// The demo load behind `comanda demo` and `serve`: a console account with the keys, and a reload
// that asks first and leaves nothing of the old demo credentials working.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadDemoWithAccount } from '../../src/admin/demo-load.ts';
import { Visitor } from '../modules/console/support.ts';
import { buildTestApp } from '../support/app.ts';

test('a demo reload needs replace, and the old demo keys, their tokens and the console password stop working', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const key = ctx.secrets.fiscalTokenKey;
  const first = await loadDemoWithAccount(ctx.db, { fiscalTokenKey: key });
  assert.ok('api_keys' in first && !first.replaced);
  const exchange = (apiKey: string) =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: new URLSearchParams({ grant_type: 'api_key', api_key: apiKey }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  const oldKey = first.api_keys[0].api_key;
  const tokens = (await exchange(oldKey)).json();
  const menu = () =>
    app.inject({ url: '/v1/products', headers: { authorization: `Bearer ${tokens.access_token}` } });
  assert.equal((await menu()).statusCode, 200);
  const signIn = await new Visitor(app).signIn(
    'demo@comanda.example',
    first.console_account.one_time_password,
  );
  assert.equal(signIn.statusCode, 303);

  assert.deepEqual(await loadDemoWithAccount(ctx.db, { fiscalTokenKey: key }), { holds_data: true });
  assert.equal((await menu()).statusCode, 200, 'without replace nothing changed');

  const again = await loadDemoWithAccount(ctx.db, { fiscalTokenKey: key, replace: true });
  assert.ok('api_keys' in again && again.replaced);
  assert.equal((await menu()).statusCode, 401);
  assert.equal((await exchange(oldKey)).statusCode, 401);
  const refreshed = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.notEqual(refreshed.statusCode, 200);
  assert.equal((await exchange(again.api_keys[0].api_key)).statusCode, 200);
  const old = await new Visitor(app).signIn('demo@comanda.example', first.console_account.one_time_password);
  assert.equal(old.statusCode, 401);
  const fresh = await new Visitor(app).signIn(
    'demo@comanda.example',
    again.console_account.one_time_password,
  );
  assert.equal(fresh.statusCode, 303);
});
