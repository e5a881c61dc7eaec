import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { insertBrand, insertRestaurant, NFE_SCOPE } from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';

test('GET /v1/brands', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const db = ctx.db;
  const key = ctx.secrets.fiscalTokenKey;

  const main = await insertRestaurant(db, 'Main');
  const later = await insertBrand(db, main, key, { name: 'Segunda', fantasyName: null, cnpj: null });
  const gone = await insertBrand(db, main, key, { name: 'Antiga', deleted: true, fiscalToken: 'old-token' });
  const bella = await insertBrand(db, main, key, {
    name: 'Bella',
    cnpj: '01234567000189',
    isDefault: true,
    fiscalToken: 'fiscal-secret-token',
  });
  const other = await insertRestaurant(db, 'Other');
  const otherBrand = await insertBrand(db, other, key, { name: 'Outra', isDefault: true, fiscalToken: 'x' });

  const reader = await bearerFor(db, [main], [NFE_SCOPE]);
  const otherReader = await bearerFor(db, [other], [NFE_SCOPE]);
  const partner = await bearerFor(db, [main, other], [NFE_SCOPE]);
  const menuOnly = await bearerFor(db, [main], ['menu:read']);
  const get = (authorization: string, query = '') =>
    app.inject({ method: 'GET', url: `/v1/brands${query}`, headers: { authorization } });

  await t.test("the restaurant's brands in id order, deleted ones left out", async () => {
    const res = await get(reader.authorization);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      data: [
        {
          id: later,
          name: 'Segunda',
          fantasy_name: null,
          cnpj: null,
          is_default: false,
          fiscal_configured: false,
        },
        {
          id: bella,
          name: 'Bella',
          fantasy_name: 'Cantina Bella Ltda',
          cnpj: '01234567000189',
          is_default: true,
          fiscal_configured: true,
        },
      ],
    });
    assert.ok(later < gone && gone < bella);
  });

  await t.test('the fiscal token never leaves the server, in any form', async () => {
    const res = await get(reader.authorization);
    const stored = await db
      .selectFrom('brands')
      .select('fiscal_token_encrypted')
      .where('id', '=', bella)
      .executeTakeFirstOrThrow();
    for (const secret of [
      'fiscal-secret-token',
      Buffer.from('fiscal-secret-token').toString('base64'),
      stored.fiscal_token_encrypted!,
    ]) {
      assert.ok(!res.body.includes(secret), 'a form of the token is in the answer');
    }
    assert.ok(!/token/i.test(res.body));
  });

  await t.test("another restaurant's brands are never shown", async () => {
    const mine = (await get(reader.authorization)).json().data.map((b: { id: number }) => b.id);
    assert.ok(!mine.includes(otherBrand));
    const theirs = await get(otherReader.authorization);
    assert.deepEqual(
      theirs.json().data.map((b: { id: number }) => b.id),
      [otherBrand],
    );
    const forbidden = await get(otherReader.authorization, `?restaurant_id=${main}`);
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.json().key, 'restaurant_forbidden');
  });

  await t.test('a credential for several restaurants names one with restaurant_id', async () => {
    const missing = await get(partner.authorization);
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().key, 'restaurant_id_required');
    const named = await get(partner.authorization, `?restaurant_id=${other}`);
    assert.equal(named.statusCode, 200);
    assert.deepEqual(
      named.json().data.map((b: { id: number }) => b.id),
      [otherBrand],
    );
  });

  await t.test('a credential without nfe-received:read is 403 insufficient_scope', async () => {
    const res = await get(menuOnly.authorization);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'insufficient_scope');
    assert.match(String(res.headers['www-authenticate']), /nfe-received:read/);
  });

  await t.test('without a credential the listing is 401, and an unknown parameter 400', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/v1/brands' });
    assert.equal(anonymous.statusCode, 401);
    const unknown = await get(reader.authorization, '?deleted=true');
    assert.equal(unknown.statusCode, 400);
    assert.deepEqual(unknown.json().errors, [{ field: 'deleted', message: 'is not an accepted field' }]);
  });
});
