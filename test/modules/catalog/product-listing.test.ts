// GET /v1/products/{id} answers from the rendered listing of the current version, and product
// reads alone have it rendered in the background, within a budget (read-service.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { register } from 'prom-client';
import { catalogApp } from './helpers.ts';

async function renders(cause: 'listing' | 'product'): Promise<number> {
  const metric = await register.getSingleMetric('catalog_listing_renders_total')?.get();
  return metric?.values.find((v) => v.labels.cause === cause)?.value ?? 0;
}

test('product reads and the rendered listing', async (t) => {
  const { ctx, get, world } = await catalogApp(t, { config: { rateLimitPerMinute: 1_000_000 } });
  const db = ctx.db;
  const { margherita, calabresa } = world.products;
  const priceOf = async (id: number) => {
    const res = await get(`/v1/products/${id}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().price as string;
  };
  /** Changes the price without moving the catalog version (triggers silenced). */
  const silentPrice = (id: number, price: string) =>
    db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx);
      await trx.updateTable('products').set({ price }).where('id', '=', id).execute();
    });

  await t.test('product reads alone have the listing rendered, then answer from it', async () => {
    const before = await renders('product');
    assert.equal(await priceOf(margherita), '42.90');
    // Once the background render is held, a change the version does not know of stays unseen.
    let servedFromListing = false;
    for (let i = 0; i < 100 && !servedFromListing; i++) {
      await sleep(10);
      const price = `${60 + i}.00`;
      await silentPrice(calabresa, price);
      servedFromListing = (await priceOf(calabresa)) !== price;
    }
    assert.ok(servedFromListing);
    assert.equal(await renders('product'), before + 1);
    assert.equal(await renders('listing'), 0);
    // A write that moves the version is read at once.
    await db.updateTable('products').set({ price: '33.00' }).where('id', '=', calabresa).execute();
    assert.equal(await priceOf(calabresa), '33.00');
  });

  await t.test('a catalog written all the time is not rendered again after every write', async () => {
    await sleep(200);
    const before = await renders('product');
    for (let i = 1; i <= 20; i++) {
      const price = `${i}.50`;
      await db.updateTable('products').set({ price }).where('id', '=', margherita).execute();
      assert.equal(await priceOf(margherita), price);
    }
    const during = (await renders('product')) - before;
    assert.ok(during <= 5, `${during} renders for 20 writes`);
  });

  await t.test('the listing route renders for itself and product reads then use it', async () => {
    await sleep(200);
    await db.updateTable('products').set({ price: '40.00' }).where('id', '=', margherita).execute();
    const listings = await renders('listing');
    assert.equal((await get('/v1/products')).statusCode, 200);
    assert.equal((await get('/v1/products')).statusCode, 200);
    assert.equal(await renders('listing'), listings + 1);
    await silentPrice(margherita, '41.00');
    assert.equal(await priceOf(margherita), '40.00');
  });
});
