// Requests arriving together share the statement that checks their tokens (or restaurant
// sessions) and reads their restaurants' data versions (src/lib/batched-lookup.ts,
// access-tokens.ts, session-check.ts): each still gets its own credential's answer, a
// revoked token among them is refused, and a write committed before they arrive is in every one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CompiledQuery, sql } from 'kysely';
import { revokeApiKey } from '../../src/modules/auth/api-keys.ts';
import { buildTestApp } from '../support/app.ts';
import { catalogWorld } from '../support/catalog-world.ts';
import { bearerFor } from '../support/tokens.ts';

test('requests arriving together share their token and version statements', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await catalogWorld(ctx.db, ctx.secrets.sessionSecret);
  const revoked = await bearerFor(ctx.db, [world.restaurantA], ['products:read'], 'revoked');
  await revokeApiKey(ctx.db, revoked.apiKeyId);
  const statements: string[] = [];
  const execute = ctx.db.executeQuery.bind(ctx.db);
  t.mock.method(ctx.db, 'executeQuery', (query: CompiledQuery) => {
    statements.push(query.sql);
    return execute(query);
  });
  const counted = (table: string) => statements.filter((s) => s.includes(`from ${table}`)).length;
  const read = (authorization: string, id: number, restaurant?: number) =>
    app.inject({
      url: `/v1/products/${id}${restaurant ? `?restaurant_id=${restaurant}` : ''}`,
      headers: { authorization },
    });
  // Both restaurants' listings in memory, so a product read is its token and version alone.
  await read(world.auth.read.authorization, world.products.margherita);
  await read(world.auth.writeB.authorization, world.products.otherRestaurant);
  await app.inject({ url: '/v1/products', headers: world.auth.read });
  await app.inject({ url: '/v1/products', headers: world.auth.writeB });

  await t.test('each request gets its own credential and restaurant', async () => {
    statements.length = 0;
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => read(world.auth.read.authorization, world.products.margherita)),
      ...Array.from({ length: 5 }, () =>
        read(world.auth.writeB.authorization, world.products.otherRestaurant),
      ),
      read(world.auth.read.authorization, world.products.otherRestaurant),
      read(world.auth.writeB.authorization, world.products.margherita),
      read(revoked.authorization, world.products.margherita),
    ]);
    for (const res of answers.slice(0, 5)) assert.equal(res.json().name, 'Margherita');
    for (const res of answers.slice(5, 10)) assert.equal(res.json().name, 'Temaki');
    assert.equal(answers[10].statusCode, 404, "another restaurant's product is not found");
    assert.equal(answers[11].statusCode, 404);
    assert.equal(answers[12].statusCode, 401, 'the revoked token among them is refused');
    assert.equal(counted('access_tokens'), 1, 'one statement checked the 13 tokens');
    assert.equal(counted('restaurants'), 0, "and read their restaurants' versions");
    // The two products missing from their listings are looked up by row: the 404s.
    assert.equal(statements.length, 1 + 2, statements.join('\n'));
  });

  await t.test('a token for several restaurants reads the one each request names', async () => {
    statements.length = 0;
    const { partner } = world.auth;
    const answers = await Promise.all([
      read(partner.authorization, world.products.margherita, world.restaurantA),
      read(partner.authorization, world.products.otherRestaurant, world.restaurantB),
      read(partner.authorization, world.products.otherRestaurant, world.restaurantA),
      read(partner.authorization, world.products.margherita),
    ]);
    assert.equal(answers[0].json().name, 'Margherita');
    assert.equal(answers[1].json().name, 'Temaki');
    assert.equal(answers[2].statusCode, 404);
    assert.equal(answers[3].json().key, 'restaurant_id_required');
    assert.equal(counted('access_tokens'), 1, 'one statement for the tokens and both restaurants');
    assert.equal(statements.length, 1 + 1, 'and the 404 by row');
  });

  await t.test('restaurant sessions are checked with their restaurants in one statement', async () => {
    statements.length = 0;
    const answers = await Promise.all([
      read(world.auth.session.authorization, world.products.margherita),
      read(world.auth.session.authorization, world.products.calabresa),
      read(world.auth.read.authorization, world.products.soda),
    ]);
    assert.deepEqual(
      answers.map((res) => res.json().name),
      ['Margherita', 'Calabresa', 'Refrigerante'],
    );
    assert.equal(counted('console_sessions'), 0);
    assert.equal(counted('restaurants'), 0);
    const sessions = statements.filter((s) => s.includes('console_sessions'));
    assert.equal(sessions.length, 1, 'one statement checked both sessions and read their restaurant');
    assert.match(sessions[0], /join restaurants/);
    assert.equal(counted('access_tokens'), 1);
    assert.equal(statements.length, 2, statements.join('\n'));
  });

  await t.test('a write committed before requests arrive is in each of them', async () => {
    await sql`update products set name = 'Margherita Especial' where id = ${world.products.margherita}`.execute(
      ctx.db,
    );
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => read(world.auth.read.authorization, world.products.margherita)),
    );
    for (const res of answers) assert.equal(res.json().name, 'Margherita Especial');
  });

  await t.test('a token revoked before requests arrive is refused in each of them', async () => {
    await revokeApiKey(ctx.db, world.auth.writeB.apiKeyId);
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => read(world.auth.writeB.authorization, world.products.otherRestaurant)),
    );
    for (const res of answers) assert.equal(res.statusCode, 401);
  });
});
