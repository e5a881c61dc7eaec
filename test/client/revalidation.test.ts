// The client keeps what it read with an ETag and revalidates it: a 304 returns the kept body.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ComandaClient } from '../../src/client/index.ts';
import { catalogWorld } from '../support/catalog-world.ts';
import { apiKeyFor, listeningApp } from './support.ts';

type Exchange = {
  path: string;
  condition: string | null;
  encoding: string | null;
  status: number;
  etag: string | null;
};

/** fetch, recording each request's If-None-Match and Accept-Encoding and the answer's status and ETag. */
function watchingFetch() {
  const exchanges: Exchange[] = [];
  const watching: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    const response = await fetch(input, init);
    if (url.pathname !== '/oauth/token')
      exchanges.push({
        path: url.pathname + url.search,
        condition: headers.get('if-none-match'),
        encoding: headers.get('accept-encoding'),
        status: response.status,
        etag: response.headers.get('etag'),
      });
    return response;
  };
  return { fetch: watching, exchanges };
}

test('the client revalidates what it read', async (t) => {
  const { ctx, baseUrl } = await listeningApp(t);
  const world = await catalogWorld(ctx.db, ctx.secrets.sessionSecret);
  const apiKey = await apiKeyFor(ctx.db, [world.restaurantA]);
  const watch = watchingFetch();
  const client = new ComandaClient({ baseUrl, apiKey, fetch: watch.fetch });

  await t.test(
    'a second read sends the tag as it came (its gzip form: the body came compressed), gets a 304 and returns the same body',
    async () => {
      const first = await client.getMenu({ channel: 'delivery' });
      const second = await client.getMenu({ channel: 'delivery' });
      assert.deepEqual(second, first);
      const [a, b] = watch.exchanges.slice(-2);
      assert.equal(a.condition, null);
      assert.equal(a.status, 200);
      assert.match(String(a.etag), /^"[A-Za-z0-9_-]{27}-gzip"$/);
      assert.equal(b.condition, a.etag);
      assert.equal(b.status, 304);
      assert.equal(b.etag, a.etag);
    },
  );

  await t.test('a caller changing its copy does not change the next answer', async () => {
    const listing = await client.listProducts();
    listing.length = 0;
    assert.notEqual((await client.listProducts()).length, 0);
    assert.equal(watch.exchanges.at(-1)?.status, 304);
  });

  await t.test('after a write the read gets the new body', async () => {
    const before = await client.getProduct(world.products.margherita);
    await client.editProduct(world.products.margherita, { price: 47.5 });
    const after = await client.getProduct(world.products.margherita);
    assert.equal(after.price, '47.50');
    assert.notEqual(after.updated_at, before.updated_at);
    assert.equal(watch.exchanges.at(-1)?.status, 200);
  });

  await t.test('the client asks for br and gzip', () => {
    assert.ok(watch.exchanges.every((e) => e.encoding === 'br, gzip'));
  });

  await t.test('the kept bodies are bounded in entries, least recently used out first', async () => {
    const small = watchingFetch();
    const bounded = new ComandaClient({ baseUrl, apiKey, fetch: small.fetch, revalidationEntries: 1 });
    await bounded.getMenu();
    await bounded.listProducts();
    await bounded.getMenu();
    await bounded.getMenu();
    assert.deepEqual(
      small.exchanges.map((e) => [e.path, e.condition !== null, e.status]),
      [
        ['/v1/menu', false, 200],
        ['/v1/products', false, 200],
        ['/v1/menu', false, 200],
        ['/v1/menu', true, 304],
      ],
    );
  });
  await t.test('the kept bodies are bounded in length too: a longer body is not kept', async () => {
    const small = watchingFetch();
    const productId = world.products.margherita;
    const productLength = JSON.stringify(await client.getProduct(productId)).length;
    assert.ok(JSON.stringify(await client.listProducts()).length > productLength + 100);
    const bounded = new ComandaClient({
      baseUrl,
      apiKey,
      fetch: small.fetch,
      revalidationLength: productLength + 100,
    });
    await bounded.listProducts();
    await bounded.listProducts();
    await bounded.getProduct(productId);
    await bounded.getProduct(productId);
    assert.deepEqual(
      small.exchanges.map((e) => [e.path.replace(/\d+$/, 'ID'), e.condition !== null, e.status]),
      [
        ['/v1/products', false, 200],
        ['/v1/products', false, 200],
        ['/v1/products/ID', false, 200],
        ['/v1/products/ID', true, 304],
      ],
    );
  });
});
