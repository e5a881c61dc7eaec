// A small world for event and webhook tests: an app on a fresh database, two restaurants with a
// category and two products each, and a bearer maker for restaurant A.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import { SCOPES } from '../../src/http/principal.ts';
import { createWebhookWorker, type WorkerOptions } from '../../src/modules/webhooks/worker.ts';
import { buildTestApp } from './app.ts';
import { addCategory, addProduct, addRestaurant } from './catalog-world.ts';
import { bearerFor } from './tokens.ts';

export const ALL_SCOPES: string[] = SCOPES;

export async function eventsWorld(t: Pick<TestContext, 'after'>, config: Partial<Config> = {}) {
  const test = await buildTestApp(t, { config });
  const { db } = test.ctx;
  const restaurant = await addRestaurant(db, 'Cantina Bella');
  const other = await addRestaurant(db, 'Sushi Kai');
  const category = await addCategory(db, restaurant, { name: 'Pizzas' });
  const products = [
    await addProduct(db, restaurant, category, { name: 'Margherita', price: '42.00' }),
    await addProduct(db, restaurant, category, { name: 'Calabresa', price: '45.00' }),
  ];
  const otherCategory = await addCategory(db, other, { name: 'Sushi' });
  const otherProduct = await addProduct(db, other, otherCategory, { name: 'Uramaki' });
  const bearer = async (scopes: string[] = ALL_SCOPES, restaurants = [restaurant]) =>
    (await bearerFor(db, restaurants, scopes)).authorization;
  return { ...test, db, restaurant, other, category, products, otherProduct, bearer };
}

export type EventsWorld = Awaited<ReturnType<typeof eventsWorld>>;

/**
 * For races on PostgreSQL: a second connection to the world's database (`other`), rolled back
 * after each subtest so a failing one leaves no lock behind, and `waits(pattern)`: until a
 * statement of another connection like `pattern` waits for a lock.
 */
export async function raceConnection(t: TestContext, world: EventsWorld) {
  const other = new pg.Client({ connectionString: world.database.url });
  await other.connect();
  // The world's database is dropped (with force) by an earlier after-hook than these.
  other.on('error', () => {});
  t.after(() => other.end());
  t.afterEach(() => other.query('rollback'));
  const waits = async (pattern: string) => {
    for (let i = 0; i < 400; i++) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike ${pattern}`.execute(
        world.db,
      );
      if (rows[0].n > 0) return;
      await sleep(10);
    }
    throw new Error(`no statement like ${pattern} waited for a lock`);
  };
  return { other, waits };
}

/**
 * A webhook worker on the world's database that may deliver to 127.0.0.1, fails the test on any
 * error it logs (unless given its own `log`), and is stopped after the test.
 */
export function worldWorker(
  t: Pick<TestContext, 'after'>,
  world: EventsWorld,
  options: Partial<WorkerOptions> = {},
) {
  const worker = createWebhookWorker({
    db: world.db,
    secretKey: world.ctx.secrets.fiscalTokenKey,
    allowPrivate: true,
    log: (err) => assert.fail(String(err)),
    ...options,
  });
  t.after(() => worker.stop());
  return worker;
}

/**
 * Waits until the feed shows every committed event: on a PostgreSQL server shared with other
 * databases (the parallel test files), any running transaction holds the feed back for a while.
 */
export async function feedSettled(db: Db): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await sql<{ settled: boolean }>`select coalesce(
      (select max(xid) from events) < pg_snapshot_xmin(pg_current_snapshot()), true) as settled`.execute(db);
    if (rows[0].settled) return;
    await sleep(25);
  }
  throw new Error('a transaction held the event feed back for 10 s');
}
