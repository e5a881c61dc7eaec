// ETag and If-None-Match on the data reads (src/http/conditional.ts): tags follow the data's
// versions, the query and the restaurant, a match is a bodiless 304 that spends no rate-limit budget;
// a body sent br or gzip carries a strong tag of its own coding.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { codedTag, noneMatch } from '../../src/http/conditional.ts';
import { recordEvents } from '../../src/modules/events/outbox.ts';
import { buildTestApp } from '../support/app.ts';
import { eventsWorld, feedSettled } from '../support/events-world.ts';
import { buildFinancialWorld } from '../support/financial-world.ts';
import { menuWorld } from '../support/menu-world.ts';
import { insertBrand, insertNote } from '../support/nfe-world.ts';
import { bearerFor } from '../support/tokens.ts';

const SCOPES = ['menu:read', 'products:read', 'financial:read', 'nfe-received:read'];

test('conditional reads', async (t) => {
  const { app, ctx, database } = await buildTestApp(t, { config: { rateLimitPerMinute: 1000 } });
  const db = ctx.db;
  const world = await menuWorld(db);
  const twin = await menuWorld(db, { name: 'Gêmea' });
  const dinner = [{ weekday: 3, start: '18:00', end: '23:00' }];
  for (const w of [world, twin]) {
    const category = await w.category({ name: 'Pizzas' });
    await w.product(category, { name: 'Margherita', price: '42.90' });
    await w.product(category, { name: 'Jantar', price: '50.00', schedules: dinner });
  }
  const [pizza] = (
    await db.selectFrom('products').select('id').where('restaurant_id', '=', world.restaurantId).execute()
  ).map((row) => row.id);
  const { authorization } = await bearerFor(db, [world.restaurantId], SCOPES);
  const twinAuth = (await bearerFor(db, [twin.restaurantId], SCOPES)).authorization;
  const get = (url: string, headers: Record<string, string> = {}, auth = authorization) =>
    app.inject({ method: 'GET', url, headers: { authorization: auth, ...headers } });
  const tagOf = async (url: string, auth = authorization) => {
    const res = await get(url, {}, auth);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]{27}"$/);
    return String(res.headers.etag);
  };
  const reads = [
    '/v1/menu',
    '/v1/products',
    `/v1/products/${pizza}`,
    `/v1/products/${pizza}/history`,
    '/v1/financial/cash-flows?start_date=2026-01-01&end_date=2026-01-31',
    '/v1/nfe-received?start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T00:00:00Z',
  ];

  await t.test(
    'a matching If-None-Match is a 304 with the tag and no body, on every tagged read',
    async () => {
      for (const url of reads) {
        const tag = await tagOf(url);
        const res = await get(url, { 'if-none-match': tag });
        assert.equal(res.statusCode, 304, url);
        assert.equal(res.body, '', url);
        assert.equal(res.headers.etag, tag, url);
        assert.equal(res.headers['content-length'], undefined, url);
      }
    },
  );

  await t.test('a changed product changes the tags of the menu, the listing and the product', async () => {
    const catalogReads = reads.slice(0, 3);
    const before = await Promise.all(catalogReads.map((url) => tagOf(url)));
    await db.updateTable('products').set({ price: '44.00' }).where('id', '=', pizza).execute();
    const after = await Promise.all(catalogReads.map((url) => tagOf(url)));
    for (const [i, url] of catalogReads.entries()) {
      assert.notEqual(after[i], before[i], url);
      const res = await get(url, { 'if-none-match': before[i] });
      assert.equal(res.statusCode, 200, url);
      assert.match(res.body, /44\.00/);
    }
  });

  await t.test('cash flows and the NF-e list change tags with their own versions only', async () => {
    const [flows, notes] = [reads[4], reads[5]];
    const before = [await tagOf(flows), await tagOf(notes)];
    await sql`update restaurants set cash_flow_version = cash_flow_version + 1 where id = ${world.restaurantId}`.execute(
      db,
    );
    assert.notEqual(await tagOf(flows), before[0]);
    assert.equal(await tagOf(notes), before[1]);
    await sql`update restaurants set nfe_version = nfe_version + 1 where id = ${world.restaurantId}`.execute(
      db,
    );
    assert.notEqual(await tagOf(notes), before[1]);
  });

  await t.test('the same data of another restaurant, or another query, has another tag', async () => {
    assert.notEqual(await tagOf('/v1/products'), await tagOf('/v1/products', twinAuth));
    assert.notEqual(await tagOf('/v1/menu'), await tagOf('/v1/menu', twinAuth));
    const variants = [
      '/v1/menu',
      '/v1/menu?channel=delivery',
      '/v1/menu?only_available=true',
      '/v1/menu?channel=delivery&only_available=true',
      '/v1/menu?search=pizza',
    ];
    const tags = await Promise.all(variants.map((url) => tagOf(url)));
    assert.equal(new Set(tags).size, variants.length);
    assert.equal(await tagOf('/v1/menu?channel=in_store&only_available=false'), tags[0]);
  });

  await t.test(
    'the menu keeps its tag within a schedule window and changes it across a boundary',
    async (t) => {
      // Wednesday 2026-03-04 in São Paulo (UTC-3): dinner opens at 18:00 local, 21:00 UTC.
      const at = (iso: string) => {
        t.mock.timers.reset();
        t.mock.timers.enable({ apis: ['Date'], now: new Date(iso) });
      };
      at('2026-03-04T19:00:00Z');
      const afternoon = await tagOf('/v1/menu?only_available=true');
      at('2026-03-04T20:59:00Z');
      assert.equal(await tagOf('/v1/menu?only_available=true'), afternoon);
      at('2026-03-04T21:00:00Z');
      const evening = await tagOf('/v1/menu?only_available=true');
      assert.notEqual(evening, afternoon);
      at('2026-03-05T01:59:00Z');
      assert.equal(await tagOf('/v1/menu?only_available=true'), evening);
      at('2026-03-05T02:00:00Z');
      assert.equal(await tagOf('/v1/menu?only_available=true'), afternoon);
      t.mock.timers.reset();
    },
  );

  await t.test(
    "tags are keyed by the server's secret: instances sharing it agree, and no tenant recomputes one",
    async (s) => {
      const config = { rateLimitPerMinute: 1000 };
      const same = await buildTestApp(s, { database, config });
      const secret = 'another-session-secret-of-at-least-32-characters';
      const other = await buildTestApp(s, {
        database,
        config: { ...config, restaurantSessionSecret: secret },
      });
      for (const url of reads) {
        const tag = await tagOf(url);
        const inject = (instance: typeof app) => instance.inject({ url, headers: { authorization } });
        assert.equal((await inject(same.app)).headers.etag, tag, url);
        assert.notEqual((await inject(other.app)).headers.etag, tag, url);
      }
    },
  );

  await t.test('a menu at a given instant is tagged by that instant', async () => {
    const one = await tagOf('/v1/menu?at=2026-03-04T19:00:00Z');
    assert.equal(await tagOf('/v1/menu?at=2026-03-04T19:00:00Z'), one);
    assert.notEqual(await tagOf('/v1/menu?at=2026-03-04T19:00:01Z'), one);
  });

  await t.test('the NF-e detail carries no tag: the fiscal provider changes it unseen', async () => {
    const res = await get('/v1/nfe-received/info/1');
    assert.equal(res.headers.etag, undefined);
  });
});

test('a 304 spends no rate-limit budget; any other answer to a conditional read does', async (t) => {
  const { app, ctx } = await buildTestApp(t, { config: { rateLimitPerMinute: 5 } });
  const world = await menuWorld(ctx.db);
  await world.category({ name: 'Pizzas' });
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);
  const get = (headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: '/v1/menu', headers: { authorization, ...headers } });
  const first = await get();
  assert.equal(first.headers['x-ratelimit-remaining'], '4');
  const tag = String(first.headers.etag);
  for (let i = 0; i < 10; i++) {
    const res = await get({ 'if-none-match': tag });
    assert.equal(res.statusCode, 304);
    assert.equal(res.headers['x-ratelimit-limit'], '5');
    assert.equal(res.headers['x-ratelimit-remaining'], '4');
  }
  const stale = await get({ 'if-none-match': '"not-the-tag"' });
  assert.equal(stale.statusCode, 200);
  assert.equal(stale.headers['x-ratelimit-remaining'], '3');
  const refused = await app.inject({
    method: 'GET',
    url: '/v1/products',
    headers: { authorization, 'if-none-match': tag },
  });
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.headers['x-ratelimit-remaining'], '2');
  const invalid = await get({ 'if-none-match': tag, 'x-ignored': '1' }).then(() =>
    app.inject({
      method: 'GET',
      url: '/v1/menu?channel=boat',
      headers: { authorization, 'if-none-match': tag },
    }),
  );
  assert.equal(invalid.statusCode, 400);
  assert.equal((await get()).headers['x-ratelimit-remaining'], '0');
  const over = await get({ 'if-none-match': '"not-the-tag"' });
  assert.equal(over.statusCode, 429);
  assert.equal((await get({ 'if-none-match': tag })).statusCode, 304);
});

test('If-None-Match compares weakly, in a list, and * matches any tag; the match is given as listed', () => {
  assert.equal(noneMatch('"abc"', '"abc"'), '"abc"');
  assert.equal(noneMatch('W/"abc"', '"abc"'), 'W/"abc"');
  assert.equal(noneMatch('"x", W/"y" , W/"abc", "abc"', '"abc"'), 'W/"abc"');
  assert.equal(noneMatch('*', '"abc"'), '*');
  assert.equal(noneMatch('*', '"abc"', false), undefined);
  assert.equal(noneMatch('"abcd"', '"abc"'), undefined);
  assert.equal(noneMatch('abc', '"abc"'), undefined);
  // A coded form of the current tag matches: the client holds the same content, decoded.
  assert.equal(noneMatch('"abc-gzip"', '"abc"'), '"abc-gzip"');
  assert.equal(noneMatch('W/"abc-br"', '"abc"'), 'W/"abc-br"');
  assert.equal(noneMatch('"abc-deflate"', '"abc"'), undefined);
  assert.equal(noneMatch('"ab-gzip"', '"abc"'), undefined);
});

test("a route's tags change with the shape of its answers", async (t) => {
  const tagWith = async (property: string) => {
    const { app, ctx } = await buildTestApp(t, {
      routes: (app) =>
        app.get(
          '/v1/test/tagged',
          {
            config: { scope: 'menu:read', etag: async () => 'the same data' },
            schema: { response: { 200: { type: 'object', properties: { [property]: { type: 'string' } } } } },
          },
          async () => ({ [property]: 'x' }),
        ),
    });
    const world = await menuWorld(ctx.db);
    const { authorization } = await bearerFor(ctx.db, [world.restaurantId], ['menu:read']);
    const res = await app.inject({ method: 'GET', url: '/v1/test/tagged', headers: { authorization } });
    assert.equal(res.statusCode, 200);
    return res.headers.etag;
  };
  const first = await tagWith('name');
  assert.equal(await tagWith('name'), first);
  assert.notEqual(await tagWith('title'), first);
});

test('an error carries no tag, and If-None-Match: * is a 304 only where a representation exists (RFC 9110 13.1.2)', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const world = await menuWorld(ctx.db);
  const category = await world.category({ name: 'Pizzas' });
  const pizza = await world.product(category, { name: 'Margherita', price: '42.90' });
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], SCOPES);
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { authorization, ...headers } });
  for (const url of ['/v1/products/999999', '/v1/products/999999/history']) {
    const missing = await get(url);
    assert.equal(missing.statusCode, 404, url);
    assert.equal(missing.headers.etag, undefined, `${url}: a 404 has no representation to tag`);
    const any = await get(url, { 'if-none-match': '*' });
    assert.equal(any.statusCode, 404, `${url}: * matches no representation`);
    assert.equal(any.headers.etag, undefined, url);
  }
  for (const url of ['/v1/menu', `/v1/products/${pizza}`, '/v1/products']) {
    // The tag of the 200 to the same request (its gzip form when its body goes as gzip).
    const tag = (await get(url, { 'accept-encoding': 'gzip' })).headers.etag;
    for (const condition of ['*', '"other", *']) {
      const res = await get(url, { 'if-none-match': condition, 'accept-encoding': 'gzip' });
      assert.equal(res.statusCode, 304, `${url} ${condition}`);
      assert.equal(res.rawPayload.length, 0, url);
      assert.equal(res.headers.etag, tag, url);
      assert.equal(res.headers['content-length'], undefined, url);
      assert.equal(res.headers['content-encoding'], undefined, url);
    }
  }
});

/** Reads of 1 KB or more, one per way a body is compressed (compression.ts). */
async function largeReads(t: Parameters<typeof buildTestApp>[0]) {
  const { app, ctx } = await buildTestApp(t, { config: { rateLimitPerMinute: 1000 } });
  const world = await menuWorld(ctx.db);
  const category = await world.category({ name: 'Pizzas' });
  let pizza = 0;
  for (let i = 0; i < 30; i++)
    pizza = await world.product(category, { name: `Pizza número ${i}`, description: 'Molho e queijo' });
  const brand = await insertBrand(ctx.db, world.restaurantId, ctx.secrets.fiscalTokenKey, {
    isDefault: true,
  });
  for (let i = 0; i < 8; i++) await insertNote(ctx.db, world.restaurantId, { brand_id: brand });
  const { authorization } = await bearerFor(ctx.db, [world.restaurantId], [...SCOPES, 'products:write']);
  for (let i = 0; i < 8; i++) {
    const res = await app.inject({
      method: 'PUT',
      url: `/v1/products/${pizza}`,
      headers: { authorization },
      payload: { description: `Molho, queijo e manjericão, versão ${i} `.repeat(4) },
    });
    assert.equal(res.statusCode, 200, res.body);
  }
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { authorization, ...headers } });
  const reads = [
    '/v1/menu', // gzip: SplitBody; br: gathered and compressed in one call
    '/v1/products', // a kept Buffer
    `/v1/products/${pizza}/history`, // a string: @fastify/compress
    '/v1/nfe-received?start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T00:00:00Z', // a kept Buffer
  ];
  return { get, reads };
}

/** Cash-flow pages (kept Buffers) of restaurant 1 of the financial world. */
async function cashFlowReads(t: Parameters<typeof buildTestApp>[0]) {
  const { app, ctx } = await buildTestApp(t, { config: { rateLimitPerMinute: 1000 } });
  await buildFinancialWorld(ctx.db);
  const { authorization } = await bearerFor(ctx.db, [1], ['financial:read']);
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers: { authorization, ...headers } });
  return { get, reads: ['/v1/financial/cash-flows?start_date=2026-01-01&end_date=2026-03-31'] };
}

test('a body sent as br or gzip carries a strong tag of its coding, the identity tag with the coding appended (RFC 9110 8.8.3)', async (t) => {
  for (const { get, reads } of [await largeReads(t), await cashFlowReads(t)]) {
    for (const url of reads) {
      const identity = await get(url);
      assert.equal(identity.statusCode, 200, `${url}: ${identity.body}`);
      assert.ok(identity.rawPayload.length >= 1024, `${url}: ${identity.rawPayload.length} bytes`);
      assert.equal(identity.headers['content-encoding'], undefined, url);
      const tag = String(identity.headers.etag);
      assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/, url);
      for (const coding of ['gzip', 'br']) {
        const coded = await get(url, { 'accept-encoding': coding });
        assert.equal(coded.headers['content-encoding'], coding, `${url} ${coding}`);
        assert.equal(coded.headers.etag, codedTag(tag, coding), `${url} ${coding}`);
        assert.equal(coded.headers.etag, `${tag.slice(0, -1)}-${coding}"`, `${url} ${coding}`);
      }
    }
  }
});

test('a 304 carries the tag as the request sent it; for `*`, the tag its 200 would carry (RFC 9110 15.4.5)', async (t) => {
  const { get, reads } = await largeReads(t);
  for (const url of reads) {
    const tag = String((await get(url)).headers.etag);
    for (const held of [tag, `W/${tag}`, codedTag(tag, 'gzip'), `W/${codedTag(tag, 'br')}`])
      for (const coding of [undefined, 'gzip', 'br']) {
        const res = await get(url, {
          'if-none-match': held,
          ...(coding ? { 'accept-encoding': coding } : {}),
        });
        assert.equal(res.statusCode, 304, `${url} ${held} ${coding}`);
        assert.equal(res.headers.etag, held, `${url} ${held} ${coding}`);
        assert.equal(res.rawPayload.length, 0, url);
      }
    const any = await get(url, { 'if-none-match': '*', 'accept-encoding': 'gzip' });
    assert.equal(any.statusCode, 304, url);
    assert.equal(any.headers.etag, codedTag(tag, 'gzip'), url);
    assert.equal(any.headers['content-encoding'], undefined, url);
    assert.equal(any.rawPayload.length, 0, url);
    assert.equal((await get(url, { 'if-none-match': '*' })).headers.etag, tag, url);
  }
});

test('the event feed is tagged by events_version, the query and the types the credential sees', async (t) => {
  const world = await eventsWorld(t);
  const productsOnly = await world.bearer(['products:read']);
  const withFinance = await world.bearer(['products:read', 'financial:read']);
  const get = (url: string, authorization: string, headers: Record<string, string> = {}) =>
    world.app.inject({ url, headers: { authorization, ...headers } });
  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 1 } },
  ]);
  await feedSettled(world.db);
  const first = await get('/v1/events', productsOnly);
  assert.equal(first.statusCode, 200, first.body);
  const tag = String(first.headers.etag);
  assert.match(tag, /^"[A-Za-z0-9_-]{27}"$/);
  const again = await get('/v1/events', productsOnly, { 'if-none-match': tag });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  // Another credential of the restaurant sees other types: the same URL is another answer.
  const wider = await get('/v1/events', withFinance, { 'if-none-match': tag });
  assert.equal(wider.statusCode, 200);
  assert.notEqual(wider.headers.etag, tag);
  assert.notEqual((await get('/v1/events?limit=1', productsOnly)).headers.etag, tag);
  // An event of another restaurant leaves the tag; one of this restaurant moves it.
  await recordEvents(world.db, [{ restaurant_id: world.other, type: 'product.updated', data: { n: 2 } }]);
  await feedSettled(world.db);
  assert.equal((await get('/v1/events', productsOnly, { 'if-none-match': tag })).statusCode, 304);
  await recordEvents(world.db, [
    { restaurant_id: world.restaurant, type: 'product.updated', data: { n: 3 } },
  ]);
  await feedSettled(world.db);
  const moved = await get('/v1/events', productsOnly, { 'if-none-match': tag });
  assert.equal(moved.statusCode, 200);
  assert.equal(moved.json().data.length, 2);
  assert.notEqual(moved.headers.etag, tag);
  // A tag does not answer a query refused before the handler: a bad cursor stays a 400.
  const refused = await get('/v1/events?after=not-a-cursor', productsOnly, { 'if-none-match': '*' });
  assert.equal(refused.statusCode, 400);
  assert.equal(refused.headers.etag, undefined);
});
