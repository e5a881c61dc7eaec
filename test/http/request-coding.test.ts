// A request body in a content coding is refused as 400 invalid_body naming the coding (the token
// endpoint: invalid_request), and writes nothing; `identity` and a bodiless request are not judged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { newKey } from '../modules/auth/support.ts';
import { catalogApp } from '../modules/catalog/helpers.ts';

test('a compressed request body is refused with a message naming its coding, and writes nothing', async (t) => {
  const { app, ctx, world } = await catalogApp(t);
  const id = world.products.calabresa;
  const put = (body: Buffer, coding?: string) =>
    app.inject({
      method: 'PUT',
      url: `/v1/products/${id}`,
      payload: body,
      headers: {
        ...world.auth.write,
        'content-type': 'application/json',
        ...(coding === undefined ? {} : { 'content-encoding': coding }),
      },
    });
  const priceOf = async () =>
    (await ctx.db.selectFrom('products').select('price').where('id', '=', id).executeTakeFirstOrThrow())
      .price;
  const before = await priceOf();

  for (const coding of ['gzip', 'br', 'GZIP ']) {
    const res = await put(gzipSync(JSON.stringify({ price: 77.7 })), coding);
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.json(), {
      statusCode: 400,
      key: 'invalid_body',
      message: `Content-Encoding "${coding.trim().toLowerCase()}" is not accepted: send the body uncompressed.`,
    });
  }
  assert.equal(await priceOf(), before);

  const plain = await put(Buffer.from(JSON.stringify({ price: 77.7 })), 'identity');
  assert.equal(plain.statusCode, 200, plain.body);
  assert.equal(plain.json().price, '77.70');

  const read = await app.inject({
    url: `/v1/products/${id}`,
    headers: { ...world.auth.read, 'content-encoding': 'gzip' },
  });
  assert.equal(read.statusCode, 200, read.body);

  const key = await newKey(ctx.db, [world.restaurantA]);
  const token = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: gzipSync(new URLSearchParams({ grant_type: 'api_key', api_key: key.api_key }).toString()),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': 'gzip' },
  });
  assert.equal(token.statusCode, 400, token.body);
  assert.equal(token.json().error, 'invalid_request');
  assert.match(token.json().error_description, /Content-Encoding "gzip" is not accepted/);
});
