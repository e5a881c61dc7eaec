// GET /v1/products/{id} answers from the rendered listing of the current version when one is held,
// and otherwise reads the product's row alone: a product read never renders the listing
// (read-service.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { register } from 'prom-client';
import { catalogApp } from './helpers.ts';

async function renders(): Promise<number> {
  const metric = await register.getSingleMetric('catalog_listing_renders_total')?.get();
  return metric?.values[0]?.value ?? 0;
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

  await t.test('product reads alone never render the listing: each reads its row', async () => {
    const before = await renders();
    for (let i = 0; i < 20; i++) {
      const price = `${60 + i}.00`;
      await silentPrice(calabresa, price);
      assert.equal(await priceOf(calabresa), price);
    }
    assert.equal(await priceOf(margherita), '42.90');
    assert.equal(await renders(), before);
  });

  await t.test('after the listing route rendered it, product reads answer from the listing', async () => {
    await db.updateTable('products').set({ price: '40.00' }).where('id', '=', margherita).execute();
    const listings = await renders();
    assert.equal((await get('/v1/products')).statusCode, 200);
    assert.equal((await get('/v1/products')).statusCode, 200);
    assert.equal(await renders(), listings + 1);
    // A change the version does not know of stays unseen: the answer came from the listing.
    await silentPrice(margherita, '41.00');
    assert.equal(await priceOf(margherita), '40.00');
  });

  await t.test('a write that moves the version is read at once, from the row', async () => {
    await db.updateTable('products').set({ price: '33.00' }).where('id', '=', calabresa).execute();
    const before = await renders();
    assert.equal(await priceOf(calabresa), '33.00');
    assert.equal(await renders(), before);
  });
});
