// Schedules are read on the restaurant's local clock (menu.md) across daylight-saving changes: an
// hour skipped opens what starts at its end, an hour repeated is within its windows both times,
// and two instants with one ETag get one menu apart from evaluated_at (schedule-window.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { restaurantOf } from '../../../src/db/restaurant-state.ts';
import { createBoundaryCache } from '../../../src/modules/menu/boundary-cache.ts';
import { createCatalogCache } from '../../../src/modules/menu/catalog-cache.ts';
import { menuTail } from '../../../src/modules/menu/menu-body.ts';
import { loadCatalogRows } from '../../../src/modules/menu/repository.ts';
import { createMenuService } from '../../../src/modules/menu/service.ts';
import { createTestDatabase } from '../../support/database.ts';
import { findProduct, menuWorld } from '../../support/menu-world.ts';
import { referenceMenu } from './reference-menu.ts';

test('schedules across daylight-saving changes, and the tag of each stretch', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const world = await menuWorld(database.db, { timezone: 'America/New_York', accepts_scheduling: true });
  const category = await world.category({ name: 'Madrugada' });
  // Sundays: New York skips 02:00-03:00 on 2026-03-08 and repeats 01:00-02:00 on 2026-11-01.
  const early = await world.product(category, {
    name: 'Early',
    schedules: [{ weekday: 0, start: '01:00', end: '02:00' }],
  });
  const late = await world.product(category, {
    name: 'Late',
    schedules: [{ weekday: 0, start: '03:00', end: '04:00' }],
  });
  const rows = await loadCatalogRows(database.db, world.restaurantId, false);
  const menu = createMenuService(database.db, createCatalogCache(), createBoundaryCache(2 ** 20));
  const tails = new Map<string, string>();

  async function at(instant: string) {
    t.mock.timers.reset();
    t.mock.timers.enable({ apis: ['Date'], now: new Date(instant) });
    const restaurant = restaurantOf(database.db, world.restaurantId);
    const tag = await menu.tag(restaurant, {}, false);
    const plan = await menu.read(restaurant, {});
    const tail = menuTail(plan).toString();
    const body = plan.top.toString() + tail;
    const reference = referenceMenu(rows, {
      restaurantId: world.restaurantId,
      timezone: 'America/New_York',
      acceptsScheduling: true,
      channel: 'in_store',
      at: new Date(instant),
      onlyAvailable: false,
      includeFiscal: false,
    });
    assert.equal(body, reference, instant);
    const seen = tails.get(tag);
    if (seen === undefined) tails.set(tag, tail);
    else assert.equal(tail, seen, `one tag, one menu: ${instant}`);
    const open = (id: number) => findProduct(JSON.parse(body), id)?.availability.resolved.available;
    return { early: open(early), late: open(late) };
  }

  await t.test('the hour skipped: 01:59 EST is followed by 03:00 EDT', async () => {
    assert.deepEqual(await at('2026-03-08T06:59:00Z'), { early: true, late: false });
    assert.deepEqual(await at('2026-03-08T07:00:00Z'), { early: false, late: true });
    assert.deepEqual(await at('2026-03-08T07:59:59.999Z'), { early: false, late: true });
    assert.deepEqual(await at('2026-03-08T08:00:00Z'), { early: false, late: false });
  });

  await t.test('the hour repeated: 01:30 EDT and 01:30 EST are both within 01:00-02:00', async () => {
    assert.deepEqual(await at('2026-11-01T05:30:00Z'), { early: true, late: false });
    assert.deepEqual(await at('2026-11-01T06:30:00Z'), { early: true, late: false });
    // 02:00 EST: closed, then 03:00 EST opens Late.
    assert.deepEqual(await at('2026-11-01T07:00:00Z'), { early: false, late: false });
    assert.deepEqual(await at('2026-11-01T08:00:00Z'), { early: false, late: true });
  });
  t.mock.timers.reset();
  // The week's stretches between Sunday's 01:00, 02:00, 03:00 and 04:00: each its own tag.
  assert.equal(tails.size, 4);
});
