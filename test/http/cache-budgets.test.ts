// The caches' budgets come from the configuration (MENU_CACHE_MB and the others) and /metrics
// shows what each holds, its budget and its evictions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { register } from 'prom-client';
import { buildTestApp } from '../support/app.ts';
import { menuWorld } from '../support/menu-world.ts';
import { bearerFor } from '../support/tokens.ts';

const MIB = 2 ** 20;

async function menuReads(source: 'memory' | 'database'): Promise<number> {
  const metric = await register.getSingleMetric('menu_catalog_reads_total')?.get();
  return metric?.values.find((v) => v.labels.source === source)?.value ?? 0;
}

async function appWith(t: Parameters<typeof buildTestApp>[0], menu: number) {
  const built = await buildTestApp(t, {
    config: {
      cacheBytes: {
        menu,
        listing: 32 * MIB,
        cashFlows: 8 * MIB,
        nfeList: 16 * MIB,
        eventFeed: 8 * MIB,
        compressedMenus: MIB,
        menuBoundaries: MIB,
      },
    },
  });
  const world = await menuWorld(built.ctx.db);
  const category = await world.category({ name: 'Pizzas' });
  await world.product(category, { name: 'Margherita' });
  const { authorization } = await bearerFor(built.ctx.db, [world.restaurantId], ['menu:read']);
  const read = (query = '') =>
    built.app.inject({ method: 'GET', url: `/v1/menu${query}`, headers: { authorization } });
  return { ...built, read };
}

test('a menu cache of 0 MiB keeps nothing: every read loads the catalog', async (t) => {
  const { read } = await appWith(t, 0);
  const loads = await menuReads('database');
  for (let i = 0; i < 3; i++) assert.equal((await read()).statusCode, 200);
  assert.equal((await menuReads('database')) - loads, 3);
});

test('with a budget the catalog is kept, and /metrics shows the bytes held and the budget', async (t) => {
  const { read, app } = await appWith(t, 5 * MIB);
  const hits = await menuReads('memory');
  for (let i = 0; i < 3; i++) assert.equal((await read()).statusCode, 200);
  assert.equal((await menuReads('memory')) - hits, 2);
  const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
  assert.match(metrics, new RegExp(`^cache_budget_bytes\\{cache="menu"\\} ${5 * MIB}$`, 'm'));
  const held = Number(/^cache_bytes\{cache="menu"\} (\d+)$/m.exec(metrics)?.[1]);
  assert.ok(held > 0 && held < 5 * MIB, String(held));
  assert.match(metrics, /^cache_budget_bytes\{cache="listing"\} 33554432$/m);
});

test("a catalog's search text and fiscal JSON, made by the first read that asks, count in the menu cache's bytes", async (t) => {
  const { read, app } = await appWith(t, 5 * MIB);
  const held = async () => {
    const metrics = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    return Number(/^cache_bytes\{cache="menu"\} (\d+)$/m.exec(metrics)?.[1]);
  };
  assert.equal((await read()).statusCode, 200);
  const plain = await held();
  assert.equal((await read('?search=marg')).statusCode, 200);
  const searched = await held();
  // "margherita": ten characters, and where the name and the description end.
  assert.ok(searched >= plain + 10 + 8, `${plain} then ${searched}`);
  assert.equal((await read('?include_fiscal_info=true')).statusCode, 200);
  const fiscal = await held();
  assert.ok(fiscal > searched, `${searched} then ${fiscal}`);
  // The catalog loaded again with its fiscal data (it was loaded without: menu/service.ts) makes its
  // search text anew, once: later reads that search or ask for fiscal data count nothing more.
  assert.equal((await read('?search=marg&include_fiscal_info=true')).statusCode, 200);
  const both = await held();
  assert.ok(both >= fiscal + 10 + 8, `${fiscal} then ${both}`);
  assert.equal((await read('?search=marg&include_fiscal_info=true')).statusCode, 200);
  assert.equal((await read('?search=pizza')).statusCode, 200);
  assert.equal(await held(), both);
});
