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
import { issueAccessToken } from '../../src/modules/auth/access-tokens.ts';
import { storeApiKey } from '../../src/modules/auth/api-keys.ts';
import { storeOAuthClient } from '../../src/modules/auth/oauth-clients.ts';
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
 * An endpoint created through the API (201, or the test fails) delivering `events` (product.updated
 * by default) to `url`, by `authorization` (a bearer of restaurant A by default); its id.
 */
export async function createEndpoint(
  world: EventsWorld,
  url: string,
  { authorization, events = ['product.updated'] }: { authorization?: string; events?: string[] } = {},
): Promise<number> {
  const res = await world.app.inject({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    headers: { authorization: authorization ?? (await world.bearer()) },
    payload: { url, events },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as number;
}

/** An API key (its plain key kept, to define it again) and an access token of it, as `authorization`. */
export async function keyWithToken(db: Db, name: string, restaurantIds: number[], scopes: string[]) {
  const stored = await storeApiKey(db, { name, restaurantIds, scopes, environment: 'test' });
  const token = await issueAccessToken(db, { apiKeyId: stored.id, restaurantIds, scopes }, 900);
  return { id: stored.id, key: stored.api_key, authorization: `Bearer ${token}` };
}

/** A client_credentials application installed at `restaurantIds`, and an access token of it. */
export async function appWithToken(db: Db, clientId: string, restaurantIds: number[], scopes: string[]) {
  const app = await storeOAuthClient(db, {
    clientId,
    clientSecret: `${clientId}-secret`,
    name: clientId.toUpperCase(),
    scopes,
    grantTypes: ['client_credentials'],
    restaurantIds,
  });
  const token = await issueAccessToken(db, { oauthClientId: app.id, restaurantIds, scopes }, 900);
  return { id: app.id, authorization: `Bearer ${token}` };
}

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
  const { db, restaurant } = world;
  /**
   * An endpoint of the key created as insertEndpoint does (the restaurant's row locked, then the
   * insert), in `other`, while `change` (the key losing something) is made meanwhile and waits for
   * that row (its statement like `waitsFor`): what `change` gave, and the endpoint's disabled_reason.
   */
  async function createdFirst<T>(apiKeyId: number, change: () => Promise<T>, waitsFor: string) {
    await other.query('begin');
    await other.query('select id from restaurants where id = $1 for update', [restaurant]);
    const changed = change();
    await waits(waitsFor);
    const { rows } = await other.query(
      `insert into webhook_endpoints (restaurant_id, url, events, secret_encrypted, api_key_id)
       values ($1, 'http://127.0.0.1:9/hook', '{product.updated}', 'x', $2) returning id`,
      [restaurant, apiKeyId],
    );
    await other.query('commit');
    const result = await changed;
    const row = await db
      .selectFrom('webhook_endpoints')
      .select('disabled_reason')
      .where('id', '=', rows[0].id)
      .executeTakeFirstOrThrow();
    return { result, reason: row.disabled_reason };
  }
  /**
   * The answer to a creation by `authorization` (of key `apiKeyId`) that waits for `change`, a
   * statement of `other` that takes something from the key, the restaurant's row locked as at its
   * commit; and whether any endpoint of the key was written.
   */
  async function createdAfter(apiKeyId: number, authorization: string, change: [string, unknown[]]) {
    await other.query('begin');
    await other.query(...change);
    await other.query('select id from restaurants where id = $1 for no key update', [restaurant]);
    const created = world.app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers: { authorization },
      payload: { url: 'http://127.0.0.1:9/hook', events: ['product.updated'] },
    });
    await waits('%from "restaurants"%for update%');
    await other.query('commit');
    const res = await created;
    const { rows } = await sql`select 1 from webhook_endpoints where api_key_id = ${apiKeyId}`.execute(db);
    return { res, written: rows.length > 0 };
  }
  return { createdFirst, createdAfter };
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
