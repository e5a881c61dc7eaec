// A restaurant removed and created again under the same id (an operator clearing it in SQL, then
// importing it anew) must not meet the catalog versions of its former self: instances key their
// menus and listings by restaurant and catalog_version, and ETags name the same pair.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { twoInstances } from '../../support/app.ts';
import { catalogVersion, menuGet, menuWorld } from '../../support/menu-world.ts';
import { sessionFor } from '../../support/tokens.ts';

test('a restaurant created again under its old id is never served its former catalog', async (t) => {
  const { one, two } = await twoInstances(t);
  const db = one.ctx.db;
  const world = await menuWorld(db);
  const id = world.restaurantId;
  const category = await world.category({ name: 'Pizzas' });
  const product = await world.product(category, { name: 'Antiga', price: '10.00' });
  await db.updateTable('products').set({ price: '11.00' }).where('id', '=', product).execute();
  const { authorization } = sessionFor(id, one.ctx.secrets.sessionSecret);
  const names = (body: { categories: { products: { name: string }[] }[] }) =>
    body.categories.flatMap((c) => c.products.map((p) => p.name));
  // Instance two holds the menu; instance one's client holds the listing's tag.
  assert.deepEqual(names((await menuGet(two.app, authorization)).json()), ['Antiga']);
  const listing = await one.app.inject({ method: 'GET', url: '/v1/products', headers: { authorization } });
  assert.equal(listing.statusCode, 200, listing.body);
  const oldTag = listing.headers.etag as string;
  const reached = await catalogVersion(db, id);

  // Cleared in SQL (replica: no foreign key nor version triggers), then created again with the same id.
  await db.transaction().execute(async (trx) => {
    await sql`set local session_replication_role = replica`.execute(trx);
    await trx.deleteFrom('products').where('restaurant_id', '=', id).execute();
    await trx.deleteFrom('product_categories').where('restaurant_id', '=', id).execute();
    await trx.deleteFrom('restaurants').where('id', '=', id).execute();
  });
  await db
    .insertInto('restaurants')
    .values({ id, name: 'Cantina Nova', timezone: 'America/Sao_Paulo', accepts_scheduling: false })
    .execute();
  const again = await db
    .insertInto('product_categories')
    .values({ restaurant_id: id, brand_id: null, name: 'Massas', schedules: '[]' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const fresh = await db
    .insertInto('products')
    .values({
      restaurant_id: id,
      product_category_id: again.id,
      brand_id: null,
      name: 'Nova',
      description: null,
      price: '20.00',
      combo_min_items: null,
      fiscal_group_id: null,
      cost: null,
      created_at: new Date(),
      updated_at: new Date(),
      schedules: '[]',
    } as never)
    .returning('id')
    .executeTakeFirstOrThrow();
  // Written until its version is, or passes, the one the former restaurant had.
  for (let n = 0; n < 10 && (await catalogVersion(db, id)) < reached; n++)
    await db
      .updateTable('products')
      .set({ price: `2${n}.00` })
      .where('id', '=', fresh.id)
      .execute();

  assert.deepEqual(names((await menuGet(two.app, authorization)).json()), ['Nova']);
  const revalidated = await one.app.inject({
    method: 'GET',
    url: '/v1/products',
    headers: { authorization, 'if-none-match': oldTag },
  });
  assert.equal(revalidated.statusCode, 200, 'the former restaurant tag names other data');
});
