// A request body that is not UTF-8 is refused as 400 invalid_body naming its first bad byte and
// that byte's offset (the token endpoint: invalid_request; the console: a 400 page), and writes
// nothing; UTF-8 with multi-byte characters, a real U+FFFD or a leading byte order mark is read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newKey } from '../modules/auth/support.ts';
import { catalogApp } from '../modules/catalog/helpers.ts';
import { addStaff, ORIGIN, seedRestaurants } from '../modules/console/support.ts';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : Buffer.from(part))));

test('a JSON body that is not UTF-8 is refused naming its byte, and writes nothing', async (t) => {
  const { app, ctx, world } = await catalogApp(t);
  const id = world.products.calabresa;
  const send = (method: 'PUT' | 'POST', url: string, body: Buffer) =>
    app.inject({
      method,
      url,
      payload: body,
      headers: { ...world.auth.write, 'content-type': 'application/json' },
    });
  const nameOf = async () =>
    (await ctx.db.selectFrom('products').select('name').where('id', '=', id).executeTakeFirstOrThrow()).name;
  const count = async () =>
    Number(
      (
        await ctx.db
          .selectFrom('products')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const before = { name: await nameOf(), count: await count() };

  const latin1 = await send('PUT', `/v1/products/${id}`, bytes('{"name":"Caf', [0xe9], '"}'));
  assert.equal(latin1.statusCode, 400, latin1.body);
  assert.deepEqual(latin1.json(), {
    statusCode: 400,
    key: 'invalid_body',
    message: 'The body is not UTF-8 text (byte 0xe9 at offset 12): send it as UTF-8.',
  });

  // The offset counts the bytes of the valid characters before it, a real U+FFFD included.
  const after = await send('PUT', `/v1/products/${id}`, bytes('{"name":"pão \uFFFD', [0xff], '"}'));
  assert.equal(after.statusCode, 400, after.body);
  assert.equal(
    after.json().message,
    'The body is not UTF-8 text (byte 0xff at offset 17): send it as UTF-8.',
  );

  const created = await send(
    'POST',
    '/v1/products',
    bytes(`{"restaurant_id":${world.restaurantA},"name":"Caf`, [0xe9], '","price":10}'),
  );
  assert.equal(created.statusCode, 400, created.body);
  assert.equal(created.json().key, 'invalid_body');
  assert.match(created.json().message, /^The body is not UTF-8 text \(byte 0xe9 at offset \d+\)/);
  assert.deepEqual({ name: await nameOf(), count: await count() }, before);

  const multiByte = await send('PUT', `/v1/products/${id}`, bytes('{"name":"Café com pão 🍕"}'));
  assert.equal(multiByte.statusCode, 200, multiByte.body);
  assert.equal(await nameOf(), 'Café com pão 🍕');

  const replacement = await send('PUT', `/v1/products/${id}`, bytes('{"name":"Caf\uFFFD"}'));
  assert.equal(replacement.statusCode, 200, replacement.body);
  assert.equal(await nameOf(), 'Caf\uFFFD');

  // RFC 8259 8.1: a parser may ignore a byte order mark; every body here does.
  const marked = await send('PUT', `/v1/products/${id}`, bytes([0xef, 0xbb, 0xbf], '{"name":"Açaí"}'));
  assert.equal(marked.statusCode, 200, marked.body);
  assert.equal(await nameOf(), 'Açaí');
});

test('a token request that is not UTF-8 is invalid_request naming its byte', async (t) => {
  const { app, ctx, world } = await catalogApp(t);
  const key = await newKey(ctx.db, [world.restaurantA]);
  const token = (body: Buffer) =>
    app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

  const bad = await token(bytes(`grant_type=api_key&api_key=${key.api_key}&x=`, [0xe9]));
  assert.equal(bad.statusCode, 400, bad.body);
  assert.equal(bad.json().error, 'invalid_request');
  assert.equal(
    bad.json().error_description,
    `The body is not UTF-8 text (byte 0xe9 at offset ${30 + key.api_key.length}): send it as UTF-8.`,
  );

  // Percent escapes spell bytes too: %E9 is Latin-1's é, not UTF-8.
  const escaped = await token(bytes(`grant_type=api_key&api_key=${key.api_key}&scope=caf%C3%A9%E9`));
  assert.equal(escaped.statusCode, 400, escaped.body);
  assert.equal(
    escaped.json().error_description,
    `The form is not UTF-8 text (the escape %E9 at offset ${43 + key.api_key.length}): send it as UTF-8.`,
  );

  const good = await token(bytes([0xef, 0xbb, 0xbf], `grant_type=api_key&api_key=${key.api_key}`));
  assert.equal(good.statusCode, 200, good.body);
});

test('a console form that is not UTF-8 is a 400 page naming its byte', async (t) => {
  const { app, ctx } = await catalogApp(t);
  const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
  await addStaff(ctx.db, 'ana@example.com', [bella]);
  const res = await app.inject({
    method: 'POST',
    url: '/console/login',
    payload: bytes('email=ana@example.com&password=', [0xe9]),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
  });
  assert.equal(res.statusCode, 400, res.body);
  assert.match(res.body, /The body is not UTF-8 text \(byte 0xe9 at offset 31\): send it as UTF-8\./);
  assert.equal(res.headers['set-cookie'], undefined);

  // An escape that ends a character early (%C3 then a plain letter) is refused the same way.
  const escaped = await app.inject({
    method: 'POST',
    url: '/console/login',
    payload: 'email=ana@example.com&password=p%C3o',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: ORIGIN },
  });
  assert.equal(escaped.statusCode, 400, escaped.body);
  assert.match(
    escaped.body,
    /The form is not UTF-8 text \(the escape %C3 at offset 32\): send it as UTF-8\./,
  );
});
