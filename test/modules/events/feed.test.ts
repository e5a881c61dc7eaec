import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { eventsWorld, feedSettled } from '../../support/events-world.ts';

test('the event feed', async (t) => {
  const world = await eventsWorld(t);
  const { app, db, products } = world;
  const writer = await world.bearer(['products:write', 'products:read']);
  const reader = await world.bearer(['products:read']);
  const menuReader = await world.bearer(['menu:read']);
  const feed = async (query = '', authorization = reader) => {
    await feedSettled(db);
    return app.inject({ url: `/v1/events${query}`, headers: { authorization } });
  };
  const edit = (id: number, payload: object) =>
    app.inject({ method: 'PUT', url: `/v1/products/${id}`, headers: { authorization: writer }, payload });

  await t.test(
    'an edit emits product.updated with each changed field before and after, and menu.updated',
    async () => {
      assert.equal((await edit(products[0], { name: 'Margherita Especial', price: 44.5 })).statusCode, 200);
      const page = (await feed()).json();
      assert.deepEqual(
        page.data.map((e: { type: string }) => e.type),
        ['product.updated', 'menu.updated'],
      );
      const [updated, menu] = page.data;
      assert.match(updated.id, /^evt_[0-9a-f]{32}$/);
      assert.equal(updated.restaurant_id, world.restaurant);
      assert.deepEqual(updated.data, {
        product_id: products[0],
        operation: 'edit',
        changes: [
          { field: 'name', from: 'Margherita', to: 'Margherita Especial' },
          { field: 'price', from: '42.00', to: '44.50' },
        ],
      });
      assert.deepEqual(menu.data, {
        channels: ['in_store', 'delivery'],
        source: 'products',
        product_ids: [products[0]],
      });
      assert.equal(page.has_more, false);
    },
  );

  await t.test('the changes of an event are the ones the product history records', async () => {
    const history = await app.inject({
      url: `/v1/products/${products[0]}/history`,
      headers: { authorization: reader },
    });
    const events = (await feed('?types=product.updated')).json().data;
    assert.deepEqual(events.at(-1).data.changes, history.json().items[0].changes);
  });

  await t.test('an availability change names both channels: each menu shows both flags', async () => {
    const res = await app.inject({
      method: 'PATCH',
      url: `/v1/products/${products[1]}/availability`,
      headers: { authorization: writer },
      payload: { available_in_delivery: false },
    });
    assert.equal(res.statusCode, 200);
    const menu = (await feed('?types=menu.updated')).json().data.at(-1);
    assert.deepEqual(menu.data.channels, ['in_store', 'delivery']);
    const inStore = await app.inject({
      url: '/v1/menu?channel=in_store',
      headers: { authorization: menuReader },
    });
    const shown = inStore.json().categories.flatMap((c: { products: { id: number }[] }) => c.products);
    assert.equal(
      shown.find((p: { id: number }) => p.id === products[1]).availability.available_in_delivery,
      false,
    );
  });

  await t.test(
    'a fiscal attribute changes the menu of both channels: a menu read with include_fiscal_info shows it',
    async () => {
      assert.equal((await edit(products[1], { fiscal_info: { ncm: '21069090' } })).statusCode, 200);
      const menu = (await feed('?types=menu.updated')).json().data.at(-1);
      assert.deepEqual(menu.data.channels, ['in_store', 'delivery']);
      assert.deepEqual(menu.data.product_ids, [products[1]]);
    },
  );

  await t.test('a write that changes nothing emits nothing', async () => {
    const before = (await feed()).json().data.length;
    assert.equal((await edit(products[0], { name: 'Margherita Especial' })).statusCode, 200);
    assert.equal((await feed()).json().data.length, before);
  });

  await t.test('an edit whose transaction fails at commit emits nothing', async () => {
    await sql`create function refuse_at_commit() returns trigger language plpgsql as $$
      begin raise exception 'refused at commit'; end $$`.execute(db);
    await sql`create constraint trigger refuse_at_commit after insert on product_changes
      deferrable initially deferred for each row when (new.product_id = ${sql.lit(products[1])})
      execute function refuse_at_commit()`.execute(db);
    const before = (await feed()).json().data.length;
    const res = await edit(products[1], { name: 'Nunca' });
    assert.equal(res.statusCode, 500);
    await sql`drop trigger refuse_at_commit on product_changes`.execute(db);
    const events = (await feed()).json().data;
    assert.equal(events.length, before);
    assert.ok(!JSON.stringify(events).includes('Nunca'));
  });

  await t.test('a bulk edit refused as a whole emits nothing', async () => {
    const before = (await feed()).json().data.length;
    const res = await app.inject({
      method: 'PUT',
      url: '/v1/products/bulk',
      headers: { authorization: writer },
      payload: [
        { id: products[0], name: 'Ok' },
        { id: 2_000_000_000, name: 'Missing' },
      ],
    });
    assert.equal(res.statusCode, 404);
    assert.equal((await feed()).json().data.length, before);
  });

  await t.test("another restaurant's events are not in the feed", async () => {
    const other = await world.bearer(['products:write', 'products:read'], [world.other]);
    await app.inject({
      method: 'PUT',
      url: `/v1/products/${world.otherProduct}`,
      headers: { authorization: other },
      payload: { name: 'Uramaki Especial' },
    });
    const ours = (await feed()).json().data;
    assert.ok(ours.every((e: { restaurant_id: number }) => e.restaurant_id === world.restaurant));
    assert.equal((await feed('', other)).json().data[0].data.product_id, world.otherProduct);
  });

  await t.test('a product creation emits product.created with every field from null', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/products',
      headers: { authorization: writer },
      payload: { product_category_id: world.category, name: 'Quatro Queijos', price: 50 },
    });
    assert.equal(res.statusCode, 201);
    const created = (await feed('?types=product.created')).json().data[0];
    assert.equal(created.data.product_id, res.json().id);
    assert.equal(created.data.operation, 'create');
    assert.deepEqual(
      created.data.changes.find((c: { field: string }) => c.field === 'name'),
      { field: 'name', from: null, to: 'Quatro Queijos' },
    );
  });
});
