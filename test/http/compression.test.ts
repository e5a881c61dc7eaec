// Compression (src/http/compression.ts): br or gzip by Accept-Encoding, never under 1 KB, always
// with Vary: accept-encoding.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { register } from 'prom-client';
import { installCompression, type KeptBody, keptBodies } from '../../src/http/compression.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import { createVersionedCache } from '../../src/lib/versioned-cache.ts';
import { buildTestApp } from '../support/app.ts';
import { menuWorld } from '../support/menu-world.ts';
import { bearerFor } from '../support/tokens.ts';

async function metricSum(name: string, source?: string): Promise<number> {
  const metric = await register.getSingleMetric(name)?.get();
  const values = metric?.values.filter((v) => source === undefined || v.labels.source === source) ?? [];
  return values.reduce((sum, v) => sum + v.value, 0);
}

const compressions = () => metricSum('http_body_compressions_total');

test('compression', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const db = ctx.db;
  const world = await menuWorld(db);
  const category = await world.category({ name: 'Pizzas' });
  let first = 0;
  for (let i = 0; i < 40; i++) {
    const id = await world.product(category, {
      name: `Pizza número ${i}`,
      description: 'Molho, queijo e manjericão',
    });
    first ||= id;
  }
  const { authorization } = await bearerFor(
    ctx.db,
    [world.restaurantId],
    ['menu:read', 'products:read', 'products:write'],
  );
  const get = (url: string, encoding?: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: 'GET',
      url,
      headers: { authorization, ...(encoding ? { 'accept-encoding': encoding } : {}), ...headers },
    });
  const plain = {
    menu: (await get('/v1/menu?at=2026-03-04T19:00:00Z')).body,
    listing: (await get('/v1/products')).body,
  };

  await t.test(
    'the menu and the listing are sent as br or gzip as asked, and decode to the same JSON',
    async () => {
      for (const [url, body] of [
        ['/v1/menu?at=2026-03-04T19:00:00Z', plain.menu],
        ['/v1/products', plain.listing],
      ]) {
        assert.ok(body.length > 4096);
        const br = await get(url, 'br');
        assert.equal(br.headers['content-encoding'], 'br', url);
        assert.equal(brotliDecompressSync(br.rawPayload).toString(), body);
        const gzip = await get(url, 'gzip');
        assert.equal(gzip.headers['content-encoding'], 'gzip', url);
        assert.equal(gunzipSync(gzip.rawPayload).toString(), body);
        assert.ok(gzip.rawPayload.length < body.length / 3);
        assert.match(String(gzip.headers.vary), /accept-encoding/);
      }
      assert.equal((await get('/v1/products', 'gzip, br')).headers['content-encoding'], 'br');
    },
  );

  await t.test(
    'a menu taking gzip compresses its rest at most twice per tag (fast when first read, for keeps when read again); each answer has its own head',
    async (t) => {
      const at = (iso: string) => {
        t.mock.timers.reset();
        t.mock.timers.enable({ apis: ['Date'], now: new Date(iso) });
      };
      const before = await compressions();
      const reads = [];
      for (const instant of ['2026-03-04T19:00:00Z', '2026-03-04T19:00:07Z', '2026-03-04T19:00:09Z']) {
        at(instant);
        reads.push({ res: await get('/v1/menu', 'br, gzip'), instant: new Date(instant).toISOString() });
      }
      t.mock.timers.reset();
      for (const { res, instant } of reads) {
        assert.equal(res.headers.etag, reads[0].res.headers.etag);
        assert.equal(res.headers['content-encoding'], 'gzip');
        const menu = JSON.parse(gunzipSync(res.rawPayload).toString());
        assert.equal(menu.evaluated_at, instant);
        assert.equal(menu.categories[0].products.length, 40);
      }
      assert.equal((await compressions()) - before, 2);
    },
  );

  await t.test(
    'a menu whose rest is kept gzipped for its tag is answered to gzip clients without loading its catalog',
    async () => {
      const url = '/v1/menu?channel=delivery';
      const menuReads = () => metricSum('menu_catalog_reads_total');
      const kept = () => metricSum('compressed_menu_reads_total', 'kept');
      for (let i = 0; i < 2; i++) await get(url, 'gzip'); // the rest compressed fast, then for keeps
      const [readsBefore, keptBefore] = [await menuReads(), await kept()];
      const fast = await get(url, 'gzip');
      assert.equal(await menuReads(), readsBefore, 'no catalog read');
      assert.equal(await kept(), keptBefore + 1);
      assert.equal(fast.headers['content-encoding'], 'gzip');
      assert.equal(fast.headers.etag, `${(await get(url)).headers.etag?.slice(0, -1)}-gzip"`);
      const body = JSON.parse(gunzipSync(fast.rawPayload).toString());
      const plainBody = (await get(url)).json();
      assert.deepEqual({ ...body, evaluated_at: 0 }, { ...plainBody, evaluated_at: 0 });
      assert.equal(Number(fast.headers['content-length']), fast.rawPayload.length);
      assert.equal((await get(url, 'br')).headers['content-encoding'], 'br', 'a br client is not sent gzip');

      // A write changes the tag: the next gzip read makes its body anew, with the new price.
      await db.updateTable('products').set({ price: '77.00' }).where('id', '=', first).execute();
      const after = await get(url, 'gzip');
      assert.match(gunzipSync(after.rawPayload).toString(), /"77.00"/);
      assert.notEqual(after.headers.etag, fast.headers.etag);
      await db.updateTable('products').set({ price: '10.00' }).where('id', '=', first).execute();
    },
  );

  await t.test('without Accept-Encoding the body is sent as it is, with Vary', async () => {
    const res = await get('/v1/products');
    assert.equal(res.headers['content-encoding'], undefined);
    assert.equal(res.headers.vary, 'accept-encoding');
    assert.equal(res.body, plain.listing);
  });

  await t.test('bodies under 1 KB are never compressed, streamed or not', async () => {
    const history = await get(`/v1/products/${first}/history`, 'br, gzip');
    assert.equal(history.statusCode, 200);
    assert.ok(history.rawPayload.length < 1024);
    assert.equal(history.headers['content-encoding'], undefined);
    assert.equal(history.headers.vary, 'accept-encoding');
    const empty = await get('/v1/menu?search=nada', 'br, gzip');
    assert.equal(empty.statusCode, 200);
    assert.ok(empty.rawPayload.length < 1024);
    assert.equal(empty.headers['content-encoding'], undefined);
    assert.equal(empty.json().categories.length, 0);
  });

  await t.test('a cached body is compressed once per data version and encoding', async () => {
    await db.updateTable('products').set({ price: '11.00' }).where('id', '=', first).execute();
    const before = await compressions();
    const bodies = new Set<string>();
    for (let i = 0; i < 5; i++) bodies.add((await get('/v1/products', 'gzip')).rawPayload.toString('base64'));
    assert.equal(bodies.size, 1);
    assert.equal(await compressions(), before + 1);
    await get('/v1/products', 'br');
    assert.equal(await compressions(), before + 2);
    await db.updateTable('products').set({ price: '12.00' }).where('id', '=', first).execute();
    assert.match(gunzipSync((await get('/v1/products', 'gzip')).rawPayload).toString(), /"12.00"/);
    assert.equal(await compressions(), before + 3);
  });

  await t.test('request bodies are read as sent: a gzipped body is not inflated', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/v1/products/${first}`,
      headers: { authorization, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ price: 13 })),
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_body');
  });

  await t.test('a 304 has no body, compressed or not', async () => {
    const tag = String((await get('/v1/products', 'br')).headers.etag);
    const res = await get('/v1/products', 'br', { 'if-none-match': tag });
    assert.equal(res.statusCode, 304);
    assert.equal(res.rawPayload.length, 0);
    assert.equal(res.headers['content-encoding'], undefined);
  });
});

test("an answer read back from a cache's gzip form is sent to a gzip client as those bytes, not compressed again", async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  await installCompression(app, 0);
  // Room for one answer as it is (a quarter of the budget): the other is packed when it leaves.
  const cache = createVersionedCache<KeptBody, string>({ maxBytes: 40_000, ...keptBodies });
  const body = (text: string) => Buffer.from(JSON.stringify({ items: Array(800).fill(text) }));
  cache.set('a', { version: 1, body: body('menu a') });
  cache.set('b', { version: 1, body: body('menu b') });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(cache.held('a'), undefined, 'a is kept only packed');
  app.get('/a', (_request, reply) => reply.type('application/json').send(cache.current('a', 1)?.body));
  const before = await compressions();
  const gzip = await app.inject({ url: '/a', headers: { 'accept-encoding': 'gzip' } });
  assert.equal(gzip.headers['content-encoding'], 'gzip');
  assert.deepEqual(gunzipSync(gzip.rawPayload), body('menu a'));
  const plain = await app.inject({ url: '/a' });
  assert.deepEqual(plain.rawPayload, body('menu a'));
  assert.equal(await compressions(), before, 'nothing was compressed for either answer');
});

test('a coding the request refuses (q=0) is never sent, even when * accepts the others (RFC 9110 12.5.3)', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  await installCompression(app, 0);
  const text = JSON.stringify({ items: Array(400).fill('pizza') });
  const split = () =>
    Object.assign(Readable.from([Buffer.from(text)]), {
      parts: () => ({ head: Buffer.from(text.slice(0, 10)), tail: () => Buffer.from(text.slice(10)) }),
    });
  app.get('/buffer', (_request, reply) => reply.type('application/json').send(Buffer.from(text)));
  app.get('/string', (_request, reply) => reply.type('application/json').send(text));
  app.get('/split', (_request, reply) =>
    reply.type('application/json').header('content-length', text.length).header('etag', '"t"').send(split()),
  );
  const decoded = (res: Awaited<ReturnType<typeof app.inject>>) => {
    const encoding = res.headers['content-encoding'];
    if (encoding === 'br') return brotliDecompressSync(res.rawPayload).toString();
    if (encoding === 'gzip') return gunzipSync(res.rawPayload).toString();
    return res.body;
  };
  const cases: [string, (string | undefined)[]][] = [
    ['br, gzip', ['br', 'gzip']],
    ['br;q=0, *', ['gzip']],
    ['gzip;q=0, *', ['br']],
    ['*;q=0', [undefined]],
    ['br;q=0, gzip;q=0, *', [undefined]],
    ['br;q=0.5, *;q=0.9', ['gzip']],
    ['GZIP', ['gzip']],
  ];
  for (const url of ['/buffer', '/string', '/split']) {
    for (const [header, allowed] of cases) {
      const res = await app.inject({ url, headers: { 'accept-encoding': header } });
      assert.equal(res.statusCode, 200);
      const encoding = res.headers['content-encoding'];
      assert.ok(allowed.includes(encoding as string | undefined), `${url} ${header}: sent ${encoding}`);
      assert.equal(decoded(res), text, `${url} ${header}`);
    }
  }
});

test("a streamed body that fails while it is read for compression is answered with the API's error, not left hanging", {
  timeout: 10_000,
}, async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  installErrorHandler(app);
  await installCompression(app, 0);
  const failing = () =>
    new Readable({
      read() {
        this.push(Buffer.alloc(600, 'a'));
        this.destroy(new Error('the body broke'));
      },
    });
  app.get('/stream', (_request, reply) =>
    reply.type('application/json').header('content-length', 2048).send(failing()),
  );
  app.get('/split', (_request, reply) =>
    reply
      .type('application/json')
      .header('content-length', 2048)
      .header('etag', '"t"')
      .send(
        Object.assign(failing(), {
          parts: () => ({
            head: Buffer.from('{"a":'),
            tail: () => {
              throw new Error('the tail broke');
            },
          }),
        }),
      ),
  );
  for (const [url, encoding] of [
    ['/stream', 'gzip'],
    ['/stream', 'br'],
    ['/split', 'gzip'],
  ]) {
    const res = await app.inject({ url, headers: { 'accept-encoding': encoding } });
    assert.equal(res.statusCode, 500, `${url} ${encoding}`);
    assert.equal(res.headers['content-encoding'], undefined);
    assert.deepEqual(Object.keys(res.json()).sort(), ['key', 'message', 'statusCode']);
    assert.equal(res.json().statusCode, 500);
    assert.ok(res.headers['x-error-id']);
  }
});
