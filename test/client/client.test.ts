import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ComandaClient, ComandaError } from '../../src/client/index.ts';
import { startFiscalSimulator } from '../../src/fiscal-simulator/fiscal-simulator.ts';
import type { ProviderDocument } from '../../src/fiscal-simulator/simulator-documents.ts';
import { catalogWorld } from '../support/catalog-world.ts';
import {
  generateEntries,
  insertEntries,
  insertRestaurant as insertFinanceRestaurant,
} from '../support/financial-world.ts';
import { insertBrand, insertNote, providerDocumentOf } from '../support/nfe-world.ts';
import { sessionFor } from '../support/tokens.ts';
import { apiKeyFor, listeningApp, recordingFetch } from './support.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const FISCAL_TOKEN = 'tok-client-test-SECRET';

async function rejection(promise: Promise<unknown>): Promise<ComandaError> {
  const error = await promise.then(
    () => assert.fail('expected a ComandaError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof ComandaError, String(error));
  return error;
}

test('ComandaClient against the real server over a socket', async (t) => {
  const documents = new Map<string, ProviderDocument | string>();
  const simulator = await startFiscalSimulator({ notes: documents, tokens: new Set([FISCAL_TOKEN]) });
  t.after(() => simulator.close());
  const { ctx, baseUrl } = await listeningApp(t, { config: { fiscalProviderUrl: simulator.url } });
  const db = ctx.db;
  const world = await catalogWorld(db, ctx.secrets.sessionSecret);
  const { restaurantA, restaurantB, products, categories } = world;
  const recorder = recordingFetch();
  const client = new ComandaClient({
    baseUrl,
    apiKey: await apiKeyFor(db, [restaurantA]),
    fetch: recorder.fetch,
  });

  await t.test('reads: the product listing, one product and the menu', async () => {
    const catalog = await client.listProducts();
    const margherita = catalog.flatMap((c) => c.products).find((p) => p.id === products.margherita);
    assert.equal(margherita?.fiscal.ncm, '02109900');
    const product = await client.getProduct(products.margherita);
    assert.equal(product.price, '42.90');
    assert.deepEqual(product.fiscal_info, product.fiscal);
    const menu = await client.getMenu({ channel: 'delivery' });
    const item = menu.categories.flatMap((c) => c.products).find((p) => p.id === products.margherita);
    assert.equal(item?.pricing.resolved.base, '45.90');
    assert.equal(menu.channel, 'delivery');
  });

  await t.test('writes: create, edit with expected_updated_at, availability', async () => {
    const created = await client.createProduct({
      name: '  Quatro Queijos ',
      product_category_id: categories.pizzas,
      price: 49.9,
    });
    assert.equal(created.name, 'Quatro Queijos');
    assert.equal(created.price, '49.90');
    const edited = await client.editProduct(created.id, {
      price: 0,
      expected_updated_at: created.updated_at,
    });
    assert.equal(edited.price, '0.00');
    const hidden = await client.setAvailability(created.id, { available_in_delivery: false });
    assert.deepEqual([hidden.available, hidden.available_in_delivery], [true, false]);
  });

  await t.test(
    'a stale bulk edit is a 409 product_update_conflict, sent once, and changes nothing',
    async () => {
      const calabresa = await client.getProduct(products.calabresa);
      const soda = await client.getProduct(products.soda);
      await client.editProduct(products.calabresa, { price: 33 }); // someone else moved it on
      const before = recorder.sent.length;
      const error = await rejection(
        client.bulkEditProducts([
          { id: products.soda, price: 7.5, expected_updated_at: soda.updated_at },
          { id: products.calabresa, price: 35, expected_updated_at: calabresa.updated_at },
        ]),
      );
      assert.deepEqual([error.status, error.key], [409, 'product_update_conflict']);
      assert.match(String(error.errorId), UUID);
      assert.equal((error.body as { conflicts: { id: number }[] }).conflicts[0].id, products.calabresa);
      const sent = recorder.sent.slice(before).filter((s) => s.path.startsWith('/v1/products/bulk'));
      assert.equal(sent.length, 1, 'a conflict is never retried');
      assert.equal((await client.getProduct(products.soda)).price, soda.price);
    },
  );

  await t.test('a fresh bulk edit answers the products in the order sent', async () => {
    const [soda, calabresa] = await Promise.all([
      client.getProduct(products.soda),
      client.getProduct(products.calabresa),
    ]);
    const edited = await client.bulkEditProducts([
      { id: products.calabresa, sold_off: true, expected_updated_at: calabresa.updated_at },
      { id: products.soda, price: 6, expected_updated_at: soda.updated_at },
    ]);
    assert.deepEqual(
      edited.map((p) => [p.id, p.sold_off, p.price]),
      [
        [products.calabresa, true, calabresa.price],
        [products.soda, false, '6.00'],
      ],
    );
  });

  await t.test('API errors arrive as ComandaError with status, key, field errors and errorId', async () => {
    const missing = await rejection(client.getProduct(products.otherRestaurant));
    assert.deepEqual(
      [missing.status, missing.key, missing.message],
      [404, 'product_not_found', 'Product not found.'],
    );
    const invalid = await rejection(client.editProduct(products.soda, { price: -1 }));
    assert.deepEqual([invalid.status, invalid.key], [400, 'invalid_body']);
    assert.equal(invalid.errors?.[0].field, 'price');
    assert.match(String(invalid.errorId), UUID);
  });

  await t.test('a partner credential passes restaurantId; without it the API asks for it', async () => {
    const partner = new ComandaClient({ baseUrl, apiKey: await apiKeyFor(db, [restaurantA, restaurantB]) });
    assert.equal((await rejection(partner.listProducts())).key, 'restaurant_id_required');
    const other = await partner.getProduct(products.otherRestaurant, { restaurantId: restaurantB });
    assert.equal(other.restaurant_id, restaurantB);
    const scoped = new ComandaClient({
      baseUrl,
      apiKey: await apiKeyFor(db, [restaurantA, restaurantB]),
      restaurantId: restaurantB,
    });
    assert.equal((await scoped.getProduct(products.otherRestaurant)).name, 'Temaki');
    const forbidden = await rejection(client.listProducts({ restaurantId: restaurantB }));
    assert.deepEqual([forbidden.status, forbidden.key], [403, 'restaurant_forbidden']);
  });

  await t.test('a restaurant session works as a fixed token source', async () => {
    const { authorization } = sessionFor(restaurantA, ctx.secrets.sessionSecret);
    const session = authorization.replace('Bearer ', '');
    const staff = new ComandaClient({ baseUrl, tokens: { getAccessToken: async () => session } });
    assert.equal((await staff.getProduct(products.margherita)).name, 'Margherita');
  });

  await t.test('the cash-flow iterator walks every page, 100 main entries at a time', async () => {
    const restaurant = 900;
    const lookups = await insertFinanceRestaurant(db, restaurant, 90_000);
    const entries = generateEntries(restaurant, lookups, {
      seed: 8,
      mains: 260,
      firstId: 500_000,
      from: '2026-01-01',
      days: 90,
    });
    await insertEntries(db, entries);
    const mains = entries.filter((e) => e.parent_id === null && !e.deleted);
    const finance = new ComandaClient({ baseUrl, apiKey: await apiKeyFor(db, [restaurant]) });
    const query = { start_date: '2026-01-01', end_date: '2026-03-31' };
    const pages = [];
    for await (const page of finance.cashFlowPages(query)) pages.push(page);
    assert.deepEqual(
      pages.map((p) => [p.offset, p.count]),
      [
        [0, 100],
        [100, 100],
        [200, mains.length - 200],
      ],
    );
    assert.equal(pages.at(-1)?.remaining, 0);
    const ids = [];
    for await (const entry of finance.cashFlowEntries(query)) ids.push(entry.id);
    assert.deepEqual(ids.sort(), mains.map((m) => m.id).sort());
  });

  await t.test('getMe() names the credential, its scopes and its restaurants', async () => {
    const me = await client.getMe();
    assert.equal(me.kind, 'api_key');
    assert.ok(me.restaurants.some((r) => r.id === restaurantA));
    assert.ok(Date.parse(me.expires_at) > Date.now());
  });

  await t.test(
    "received NF-e: the brands, a brand's list, then one in detail from the provider",
    async () => {
      const fiscal = await insertBrand(db, restaurantA, ctx.secrets.fiscalTokenKey, {
        name: 'Fiscal',
        isDefault: true,
        fiscalToken: FISCAL_TOKEN,
      });
      const brands = await client.listBrands();
      const brand = brands.find((b) => b.name === 'Fiscal');
      assert.deepEqual(brand, {
        id: fiscal,
        name: 'Fiscal',
        fantasy_name: 'Cantina Bella Ltda',
        cnpj: '01234567000189',
        is_default: true,
        fiscal_configured: true,
      });
      assert.deepEqual(
        brands.map((b) => b.id),
        brands.map((b) => b.id).sort((a, b) => a - b),
      );
      const id = await insertNote(db, restaurantA, { brand_id: fiscal });
      const [note] = await client.listReceivedNfe({
        start_date: '2026-01-01T00:00:00Z',
        end_date: '2026-01-31T23:59:59Z',
        brand_id: brand!.id,
      });
      assert.equal(note.id, id);
      const access_key = note.identification.access_key;
      documents.set(access_key, providerDocumentOf(access_key));
      const detail = await client.getReceivedNfe(id);
      assert.equal(detail.identification.access_key, access_key);
      assert.equal(detail.processing.return_in_progress, false);
      assert.ok(detail.invoice);
    },
  );
});
