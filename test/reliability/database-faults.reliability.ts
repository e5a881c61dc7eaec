// A database that accepts connections and does not answer, one out of connection slots, and a
// stop that meets a request waiting on it: every request has a budget, a write answered 503 (or
// not answered) never commits later, and the process exits by its deadline.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import pg from 'pg';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { reliabilityWorld } from '../security/world.ts';
import { bearer, freshDatabase, http, importFile, SECRETS, startInstance, tempDir } from './harness.ts';
import { missingServices, SHARED_POSTGRES } from './services.ts';

const SKIP = await missingServices();
const BUDGET_MS = 1500;

async function world(t: { after(fn: () => unknown): void }) {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data, keys } = reliabilityWorld({ products: 12, keys: 1 });
  await importFile(t, databaseUrl, data);
  const session = signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET);
  return { databaseUrl, ids, key: keys[0].key, session };
}

/** Another session that holds `ids`' rows locked until release() (as a long transaction would). */
async function holdLocks(databaseUrl: string, ids: number[]) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select id from products where id = any($1) for update', [ids]);
  return {
    release: async () => {
      await client.query('rollback');
      await client.end();
    },
  };
}

async function prices(databaseUrl: string, ids: number[]): Promise<string[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query('select price::text from products where id = any($1) order by id', [
    ids,
  ]);
  await client.end();
  return rows.map((row) => row.price);
}

async function sql(url: string, text: string) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('database faults', { skip: SKIP, timeout: 120_000 }, async (t) => {
  await t.test(
    "writes blocked by another session's lock answer 503 within their budget and never commit later",
    async (t) => {
      const { databaseUrl, ids, session } = await world(t);
      const instance = await startInstance(t, {
        DATABASE_URL: databaseUrl,
        DATA_DIR: tempDir(t),
        DATABASE_STATEMENT_TIMEOUT_MS: String(BUDGET_MS),
        RATE_LIMIT_PER_MINUTE: '100000',
      });
      const products = ids.a.products;
      const before = await prices(databaseUrl, products);
      const lock = await holdLocks(databaseUrl, products);
      // More blocked writes than the pool has connections (10): the budget frees them all.
      const writes = await Promise.all(
        products.map((id) =>
          http(`${instance.url}/v1/products/${id}`, {
            method: 'PUT',
            headers: bearer(session),
            body: JSON.stringify({ price: 99.99 }),
          }),
        ),
      );
      const health = await http(`${instance.url}/readyz`, {}, 5000);
      await lock.release();
      for (const write of writes) {
        assert.equal(write.status, 503, write.text);
        assert.equal(write.json.key, 'service_unavailable');
        assert.ok(Number(write.headers.get('retry-after')) >= 1, 'Retry-After is set');
        assert.ok(write.ms < BUDGET_MS * 3, `answered in ${Math.round(write.ms)} ms`);
      }
      assert.equal(health.status, 200, 'the instance still answers once the writes gave up');
      await sleep(BUDGET_MS);
      assert.deepEqual(await prices(databaseUrl, products), before, 'no refused write committed later');
    },
  );

  await t.test(
    "out of connection slots is 503 with Retry-After, the token endpoint in OAuth's shape",
    async (t) => {
      const { databaseUrl, key, session } = await world(t);
      const role = `comanda_slots_${randomBytes(3).toString('hex')}`;
      await sql(SHARED_POSTGRES, `create role ${role} login connection limit 1`);
      await sql(databaseUrl, `grant all on all tables in schema public to ${role}`);
      await sql(databaseUrl, `grant all on all sequences in schema public to ${role}`);
      t.after(async () => {
        await sql(databaseUrl, `drop owned by ${role}`).catch(() => undefined);
        await sql(SHARED_POSTGRES, `drop role if exists ${role}`).catch(() => undefined);
      });
      const url = new URL(databaseUrl);
      url.username = role;
      const instance = await startInstance(t, {
        DATABASE_URL: url.toString(),
        DATA_DIR: tempDir(t),
        DATABASE_POOL_SIZE: '8',
        RATE_LIMIT_PER_MINUTE: '100000',
        TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
      });
      const reads = Array.from({ length: 16 }, () =>
        http(`${instance.url}/v1/menu`, { headers: bearer(session) }),
      );
      const exchanges = Array.from({ length: 8 }, () =>
        http(`${instance.url}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=api_key&api_key=${key}`,
        }),
      );
      const menus = await Promise.all(reads);
      const tokens = await Promise.all(exchanges);
      for (const answer of menus) {
        assert.ok([200, 503].includes(answer.status), `${answer.status} ${answer.text}`);
        if (answer.status === 503) {
          assert.equal(answer.json.key, 'service_unavailable');
          assert.ok(answer.headers.get('retry-after'));
        }
      }
      for (const answer of tokens) {
        assert.ok([200, 503].includes(answer.status), `${answer.status} ${answer.text}`);
        if (answer.status === 503) {
          assert.equal(answer.json.error, 'temporarily_unavailable');
          assert.equal(typeof answer.json.error_description, 'string');
          assert.ok(answer.headers.get('retry-after'));
          assert.equal(answer.headers.get('cache-control'), 'no-store');
        }
      }
      const refused = [...menus, ...tokens].filter((answer) => answer.status === 503).length;
      assert.ok(refused > 0, 'the slots ran out (some answers were 503)');
    },
  );

  await t.test(
    'SIGTERM while a write waits on the database: the process exits by its deadline',
    async (t) => {
      const { databaseUrl, ids, session } = await world(t);
      const instance = await startInstance(t, {
        DATABASE_URL: databaseUrl,
        DATA_DIR: tempDir(t),
        DATABASE_STATEMENT_TIMEOUT_MS: '8000',
        SHUTDOWN_TIMEOUT_MS: '1000',
      });
      const [id] = ids.a.products;
      const before = await prices(databaseUrl, [id]);
      const lock = await holdLocks(databaseUrl, [id]);
      const write = http(`${instance.url}/v1/products/${id}`, {
        method: 'PUT',
        headers: bearer(session),
        body: JSON.stringify({ price: 77.77 }),
      });
      await sleep(300);
      const signalled = Date.now();
      instance.child.kill('SIGTERM');
      await instance.exited;
      const exitMs = Date.now() - signalled;
      const answer = await write;
      await lock.release();
      assert.ok(exitMs < 3000, `exited ${exitMs} ms after SIGTERM`);
      assert.notEqual(answer.status, 200, 'the cut write was not acknowledged');
      await sleep(500);
      assert.deepEqual(await prices(databaseUrl, [id]), before, 'the unanswered write did not commit');
    },
  );
});
