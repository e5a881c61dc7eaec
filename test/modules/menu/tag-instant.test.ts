// A menu request's ETag and its answer are made at one instant, even when the clock moves between
// them (src/modules/menu/service.ts): a tag never names a schedule window its body was not made in.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createBoundaryCache } from '../../../src/modules/menu/boundary-cache.ts';
import { createCatalogCache } from '../../../src/modules/menu/catalog-cache.ts';
import { createMenuService } from '../../../src/modules/menu/service.ts';
import { createTestDatabase } from '../../support/database.ts';
import { menuWorld } from '../../support/menu-world.ts';

test('the tag and the answer of one request read the clock once', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const world = await menuWorld(database.db);
  const category = await world.category({ name: 'Jantar' });
  await world.product(category, { name: 'Prato', schedules: [{ weekday: 3, start: '18:00', end: '23:00' }] });
  const menu = createMenuService(database.db, createCatalogCache(), createBoundaryCache(2 ** 20));
  const restaurant = restaurantOf(database.db, world.restaurantId);
  // Wednesday 17:59:59.999 in São Paulo, one millisecond before dinner opens.
  t.mock.timers.enable({ apis: ['Date'], now: new Date('2026-03-04T20:59:59.999Z') });
  const tag = await menu.tag(restaurant, {});
  t.mock.timers.tick(1);
  const plan = await menu.read(restaurant, {});
  assert.match(plan.top.toString(), /"evaluated_at":"2026-03-04T20:59:59.999Z"/);
  const later = await menu.tag(restaurantOf(database.db, world.restaurantId), {});
  assert.notEqual(later, tag, 'a new request at 18:00 is in the next window');
});
