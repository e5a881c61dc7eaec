// A menu's catalog carries the products' fiscal projections only once a read has asked for them
// (include_fiscal_info=true); from then on each new version of it is loaded with them, so a
// restaurant whose integrator reads them does not load its catalog twice after every write.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createBoundaryCache } from '../../../src/modules/menu/boundary-cache.ts';
import { createCatalogCache } from '../../../src/modules/menu/catalog-cache.ts';
import { createMenuService } from '../../../src/modules/menu/service.ts';
import { createTestDatabase } from '../../support/database.ts';
import { menuWorld } from '../../support/menu-world.ts';

test('a catalog read with its fiscal projections is loaded with them at its next version', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const world = await menuWorld(database.db);
  const pizzas = await world.category({ name: 'Pizzas' });
  await world.product(pizzas, { name: 'Margherita' });
  const cache = createCatalogCache();
  const menu = createMenuService(database.db, cache, createBoundaryCache(0));
  const read = (query: { include_fiscal_info?: boolean }) =>
    menu.read(restaurantOf(database.db, world.restaurantId), query);
  // The in-store channel's entry (service.ts cacheKey).
  const held = () => cache.held(world.restaurantId * 2);

  await read({});
  assert.equal(held()?.fiscalTexts, null, 'a plain read loads no fiscal projection');
  await read({ include_fiscal_info: true });
  assert.notEqual(held()?.fiscalTexts, null);
  const asked = held()!.version;

  await world.product(pizzas, { name: 'Calabresa' });
  await read({});
  assert.ok(held()!.version > asked, 'the write made a new version');
  assert.notEqual(held()?.fiscalTexts, null, 'the plain read after the write loaded them again');
});
