import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ComandaClient, ComandaError } from '../../src/client/index.ts';
import { catalogWorld } from '../support/catalog-world.ts';
import { apiError, apiKeyFor, listeningApp, ok, recordingFetch, scriptedServer } from './support.ts';

test('ComandaClient change review against the real server', async (t) => {
  const { ctx, baseUrl } = await listeningApp(t);
  const { restaurantA, products } = await catalogWorld(ctx.db, ctx.secrets.sessionSecret);
  const recorder = recordingFetch();
  const client = new ComandaClient({
    baseUrl,
    apiKey: await apiKeyFor(ctx.db, [restaurantA]),
    fetch: recorder.fetch,
  });

  await t.test('dryRun reviews an edit without writing; the reviewed write then applies', async () => {
    const review = await client.editProduct(products.calabresa, { price: 36.5 }, { dryRun: true });
    assert.equal(review.dry_run, true);
    const [calabresa] = review.products;
    assert.deepEqual(calabresa.changes, [{ field: 'price', from: '10.00', to: '36.50' }]);
    assert.equal(recorder.sent.at(-1)?.path, `/v1/products/${products.calabresa}?dry_run=true`);
    assert.equal((await client.getProduct(products.calabresa)).price, '10.00');
    const written = await client.editProduct(products.calabresa, {
      price: 36.5,
      expected_updated_at: calabresa.expected_updated_at,
    });
    assert.equal(written.price, '36.50');
  });

  await t.test('dryRun on a bulk edit reviews each product in order; a stale one is a 409', async () => {
    const edits = [
      { id: products.soda, sold_off: true },
      { id: products.margherita, name: 'Margherita DOC' },
    ];
    const review = await client.bulkEditProducts(edits, { dryRun: true });
    assert.deepEqual(
      review.products.map((p) => p.id),
      [products.soda, products.margherita],
    );
    const stale = edits.map((e) => ({ ...e, expected_updated_at: '2020-01-01T00:00:00.000Z' }));
    const error = await client.bulkEditProducts(stale, { dryRun: true }).catch((e: unknown) => e);
    assert.ok(error instanceof ComandaError);
    assert.equal(error.status, 409);
    const conflicts = (error.body as { conflicts: { index: number }[] }).conflicts;
    assert.deepEqual(
      conflicts.map((c) => c.index),
      [0, 1],
    );
  });

  await t.test('history pages by cursor and historyEntries walks every page', async () => {
    for (const price of [1, 2, 3]) await client.editProduct(products.soda, { price });
    const first = await client.history(products.soda, { limit: 2 });
    assert.equal(first.items.length, 2);
    assert.ok(first.next_cursor);
    const { credential } = first.items[0];
    assert.equal(credential.kind === 'api_key' && credential.api_key_name, 'client test');
    const all = [];
    for await (const entry of client.historyEntries(products.soda)) all.push(entry);
    assert.deepEqual(all.slice(0, 2), first.items);
    assert.deepEqual(
      all.map((e) => e.changes[0].to),
      ['3.00', '2.00', '1.00'],
    );
  });
});

test('a dry run is retried like a read, and the real edit with its Idempotency-Key', async (t) => {
  const path = '/v1/products/7';
  const server = await scriptedServer(t, {
    [path]: [apiError(503, 'service_unavailable'), ok({ dry_run: true, products: [] })],
  });
  const client = new ComandaClient({
    baseUrl: server.baseUrl,
    tokens: { getAccessToken: async () => 'cat_token' },
    retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
  });
  const review = await client.editProduct(7, { price: 1 }, { dryRun: true });
  assert.deepEqual(review, { dry_run: true, products: [] });
  assert.deepEqual(
    server.received.map((r) => r.search),
    ['?dry_run=true', '?dry_run=true'],
  );
  const retried = await scriptedServer(t, { [path]: [apiError(503, 'service_unavailable'), ok({ id: 7 })] });
  const writer = new ComandaClient({
    baseUrl: retried.baseUrl,
    tokens: { getAccessToken: async () => 'cat_token' },
    retry: { retries: 2, baseDelayMs: 5, maxDelayMs: 20 },
  });
  assert.deepEqual(await writer.editProduct(7, { price: 1 }), { id: 7 });
  assert.equal(retried.received.length, 2, 'the real edit is retried with its Idempotency-Key');
  assert.equal(retried.received[0].search, '');
  assert.equal(
    retried.received[1].headers['idempotency-key'],
    retried.received[0].headers['idempotency-key'],
  );
  assert.equal(server.received[0].headers['idempotency-key'], undefined, 'a dry run carries no key');
});
