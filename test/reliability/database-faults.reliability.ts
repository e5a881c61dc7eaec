// A database that accepts connections and does not answer, one out of connection slots, and a
// stop that meets a request waiting on it: every request has a budget, a write answered 503 (or
// not answered) never commits later, and the process exits by its deadline. The same on two
// instances sharing PostgreSQL and Redis, the token endpoint in OAuth's shape under each fault,
// and a stop of one instance while the other serves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { reliabilityWorld } from '../security/world.ts';
import {
  bearer,
  freshDatabase,
  type HttpAnswer,
  http,
  importFile,
  keptAlive,
  SECRETS,
  startInstance,
  tempDir,
} from './harness.ts';
import { missingServices, SHARED_POSTGRES, SHARED_REDIS } from './services.ts';

const SKIP = await missingServices();
const BUDGET_MS = 1500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function world(t: { after(fn: () => unknown): void }) {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data, keys } = reliabilityWorld({ products: 12, keys: 1 });
  await importFile(t, databaseUrl, data);
  const session = signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET);
  return { databaseUrl, ids, key: keys[0].key, keyId: keys[0].id, session };
}

/** Another session that holds rows locked until release() (as a long transaction would): the
 * products `ids`, and the API keys `keyIds` (an exchange of a key updates its row). */
async function holdLocks(databaseUrl: string, ids: number[], keyIds: number[] = []) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('begin');
  await client.query('select id from products where id = any($1) for update', [ids]);
  await client.query('select id from api_keys where id = any($1) for update', [keyIds]);
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

async function sql(url: string, text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Refresh-token families and access tokens issued for an API key (an exchange writes both). */
async function issuedFor(databaseUrl: string, keyId: number): Promise<number[]> {
  const [row] = await sql(
    databaseUrl,
    `select (select count(*) from refresh_token_families where api_key_id = $1)::int as families,
            (select count(*) from access_tokens where api_key_id = $1)::int as tokens`,
    [keyId],
  );
  return [row.families, row.tokens];
}

/** A login role with `limit` connections and every right on the test's tables; dropped after. */
async function limitedRole(t: { after(fn: () => unknown): void }, databaseUrl: string, limit: number) {
  const role = `comanda_slots_${randomBytes(3).toString('hex')}`;
  await sql(SHARED_POSTGRES, `create role ${role} login connection limit ${limit}`);
  await sql(databaseUrl, `grant all on all tables in schema public to ${role}`);
  await sql(databaseUrl, `grant all on all sequences in schema public to ${role}`);
  t.after(async () => {
    await sql(SHARED_POSTGRES, `select pg_terminate_backend(pid) from pg_stat_activity where usename = $1`, [
      role,
    ]).catch(() => undefined);
    await sql(databaseUrl, `drop owned by ${role}`).catch(() => undefined);
    await sql(SHARED_POSTGRES, `drop role if exists ${role}`).catch(() => undefined);
  });
  const url = new URL(databaseUrl);
  url.username = role;
  return { role, url: url.toString() };
}

/**
 * Every connection slot of `role` taken by another client: its limit is set to `slots`, the
 * connections the instances hold are ended, and the test's own clients fill the slots. release()
 * gives them back and lifts the limit.
 */
async function takeSlots(role: string, url: string, slots: number) {
  await sql(SHARED_POSTGRES, `alter role ${role} connection limit ${slots}`);
  const held: pg.Client[] = [];
  for (let attempt = 0; held.length < slots && attempt < 50; attempt++) {
    const pids = await Promise.all(
      held.map(async (c) => (await c.query('select pg_backend_pid() as pid')).rows[0].pid),
    );
    await sql(
      SHARED_POSTGRES,
      'select pg_terminate_backend(pid) from pg_stat_activity where usename = $1 and not (pid = any($2))',
      [role, pids],
    );
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    // An instance may take a freed slot first (its background jobs poll): end it again and retry.
    await client.connect().then(
      () => held.push(client),
      () => undefined,
    );
  }
  assert.equal(held.length, slots, 'the test holds every slot of the role');
  return {
    release: async () => {
      await sql(SHARED_POSTGRES, `alter role ${role} connection limit -1`);
      await Promise.all(held.map((c) => c.end()));
    },
  };
}

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const exchange = (url: string, key: string) =>
  http(`${url}/oauth/token`, { method: 'POST', headers: form, body: `grant_type=api_key&api_key=${key}` });

function assertUnavailable(answer: HttpAnswer, what: string) {
  assert.equal(answer.status, 503, `${what}: ${answer.status} ${answer.text}`);
  assert.ok(Number(answer.headers.get('retry-after')) >= 1, `${what}: Retry-After is set`);
  assert.ok(answer.headers.get('x-error-id'), `${what}: X-Error-Id is set`);
}

/** The token endpoint's 503: OAuth's shape (RFC 6749 5.2), never stored. */
function assertTokenUnavailable(answer: HttpAnswer, what: string) {
  assertUnavailable(answer, what);
  assert.deepEqual(Object.keys(answer.json).sort(), ['error', 'error_description'], what);
  assert.equal(answer.json.error, 'temporarily_unavailable', what);
  assert.equal(answer.headers.get('cache-control'), 'no-store', what);
}

/** Polls `check` every 100 ms until it holds, for at most `boundMs`; false if it never did. */
async function until(check: () => Promise<boolean>, boundMs = 15_000): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < boundMs) {
    if (await check()) return true;
    await sleep(100);
  }
  return false;
}

test('database faults', { skip: SKIP, timeout: 300_000 }, async (t) => {
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
      const { url } = await limitedRole(t, databaseUrl, 1);
      const instance = await startInstance(t, {
        DATABASE_URL: url,
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

  /**
   * SIGTERM (SHUTDOWN_TIMEOUT_MS 1 s) while a write waits on a row lock another session holds; the
   * lock is let go `releaseMs` after the signal, or once the process has exited. The write is
   * never acknowledged and never commits; the exit's delay after the signal.
   */
  const cutWrite = async (t: TestContext, releaseMs?: number) => {
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
    if (releaseMs !== undefined) await sleep(releaseMs).then(() => lock.release());
    await instance.exited;
    const exitMs = Date.now() - signalled;
    const answer = await write;
    if (releaseMs === undefined) await lock.release();
    assert.notEqual(answer.status, 200, 'the cut write was not acknowledged');
    await sleep(500);
    assert.deepEqual(await prices(databaseUrl, [id]), before, 'the cut write did not commit');
    return exitMs;
  };

  await t.test(
    'SIGTERM while a write waits on the database: the process exits by its deadline',
    async (t) => {
      const exitMs = await cutWrite(t);
      assert.ok(exitMs < 3000, `exited ${exitMs} ms after SIGTERM`);
    },
  );

  await t.test(
    'SIGTERM: a write cut at the deadline never commits, even when its lock frees before the process exits',
    // The cut comes 1 s after the signal and the exit a second later: the lock frees between.
    async (t) => {
      await cutWrite(t, 1400);
    },
  );

  await t.test(
    "two instances: writes and token exchanges blocked by another session's lock answer 503 within their budget and commit nothing",
    async (t) => {
      const { databaseUrl, ids, key, keyId, session } = await world(t);
      const env = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: SHARED_REDIS,
        DATA_DIR: tempDir(t),
        DATABASE_STATEMENT_TIMEOUT_MS: String(BUDGET_MS),
        RATE_LIMIT_PER_MINUTE: '100000',
        TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
      };
      const instances = await Promise.all([startInstance(t, env), startInstance(t, env)]);
      const products = ids.a.products;
      const before = await prices(databaseUrl, products);
      const issued = await issuedFor(databaseUrl, keyId);
      const lock = await holdLocks(databaseUrl, products, [keyId]);
      const [writes, exchanges] = await Promise.all([
        Promise.all(
          products.map((id, i) =>
            http(`${instances[i % 2].url}/v1/products/${id}`, {
              method: 'PUT',
              headers: bearer(session),
              body: JSON.stringify({ price: 88.88 }),
            }),
          ),
        ),
        Promise.all([0, 1, 0, 1].map((i) => exchange(instances[i].url, key))),
      ]);
      const ready = await Promise.all(instances.map((i) => http(`${i.url}/readyz`, {}, 5000)));
      await lock.release();
      for (const [i, write] of writes.entries()) {
        assertUnavailable(write, `write ${i} (instance ${i % 2})`);
        assert.equal(write.json.key, 'service_unavailable');
        assert.ok(write.ms < BUDGET_MS * 3, `write ${i} answered in ${Math.round(write.ms)} ms`);
      }
      for (const [i, answer] of exchanges.entries()) {
        assertTokenUnavailable(answer, `exchange ${i}`);
        assert.ok(answer.ms < BUDGET_MS * 3, `exchange ${i} answered in ${Math.round(answer.ms)} ms`);
      }
      assert.deepEqual(
        ready.map((r) => r.status),
        [200, 200],
        'both instances still answer once the blocked requests gave up',
      );
      await sleep(BUDGET_MS);
      assert.deepEqual(await prices(databaseUrl, products), before, 'no refused write committed later');
      assert.deepEqual(await issuedFor(databaseUrl, keyId), issued, 'no refused exchange issued a token');
      for (const instance of instances) {
        assert.equal(
          (await exchange(instance.url, key)).status,
          200,
          'the key exchanges once the lock is gone',
        );
      }
    },
  );

  await t.test(
    "two instances out of connection slots: both answer 503 with Retry-After (the token endpoint in OAuth's shape), never 500, and recover",
    async (t) => {
      const { databaseUrl, key, session } = await world(t);
      const { role, url } = await limitedRole(t, databaseUrl, 20);
      const env = {
        DATABASE_URL: url,
        REDIS_URL: SHARED_REDIS,
        DATA_DIR: tempDir(t),
        DATABASE_POOL_SIZE: '8',
        RATE_LIMIT_PER_MINUTE: '100000',
        TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
      };
      const instances = await Promise.all([startInstance(t, env), startInstance(t, env)]);
      const slots = await takeSlots(role, url, 2);
      let released = false;
      t.after(() => (released ? undefined : slots.release()));
      const answers = await Promise.all(
        instances.map(async (instance) => ({
          menus: await Promise.all(
            Array.from({ length: 6 }, () => http(`${instance.url}/v1/menu`, { headers: bearer(session) })),
          ),
          tokens: await Promise.all(Array.from({ length: 3 }, () => exchange(instance.url, key))),
          ready: await http(`${instance.url}/readyz`, {}, 5000),
        })),
      );
      await slots.release();
      released = true;
      for (const [i, { menus, tokens, ready }] of answers.entries()) {
        for (const menu of menus) {
          assertUnavailable(menu, `instance ${i} menu`);
          assert.equal(menu.json.key, 'service_unavailable');
        }
        for (const token of tokens) assertTokenUnavailable(token, `instance ${i} token`);
        assertUnavailable(ready, `instance ${i} /readyz`);
      }
      for (const [i, instance] of instances.entries()) {
        const menu = () => http(`${instance.url}/v1/menu`, { headers: bearer(session) });
        assert.ok(await until(async () => (await menu()).status === 200), `instance ${i} serves again`);
        assert.equal((await exchange(instance.url, key)).status, 200, `instance ${i} issues tokens again`);
      }
    },
  );

  await t.test(
    'two instances: SIGTERM to one, the other keeps serving; kept-alive writes to the stopping one are answered and a 503 fails over',
    async (t) => {
      const { databaseUrl, ids, session } = await world(t);
      const env = {
        DATABASE_URL: databaseUrl,
        REDIS_URL: SHARED_REDIS,
        DATA_DIR: tempDir(t),
        RATE_LIMIT_PER_MINUTE: '100000',
      };
      const [stopping, serving] = await Promise.all([startInstance(t, env), startInstance(t, env)]);
      const products = ids.a.products.slice(0, 8);
      const headers = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
      const connections = await Promise.all(products.map(() => keptAlive(stopping.url)));
      t.after(() => {
        for (const connection of connections) connection.destroy();
      });
      for (const connection of connections) {
        const answer = await connection.send('/v1/menu', headers);
        assert.equal('status' in answer && answer.status, 200, JSON.stringify(answer));
      }
      // Reads on the other instance all along the stop.
      let reading = true;
      const reads: HttpAnswer[] = [];
      const reader = (async () => {
        while (reading) reads.push(await http(`${serving.url}/v1/menu`, { headers: bearer(session) }));
      })();

      stopping.child.kill('SIGTERM');
      const signalled = Date.now();
      const outcomes = await Promise.all(
        products.map(async (id, i) => {
          await sleep(i * 60);
          const first = await connections[i].send(
            `/v1/products/${id}`,
            headers,
            'PUT',
            JSON.stringify({ price: 50 + i }),
          );
          if (!('status' in first)) return { first, retried: undefined };
          if (first.status !== 503) return { first, retried: undefined };
          // The client's failover: the same edit, with its own price, on the other instance.
          const retried = await http(`${serving.url}/v1/products/${id}`, {
            method: 'PUT',
            headers: bearer(session),
            body: JSON.stringify({ price: 60 + i }),
          });
          return { first, retried };
        }),
      );
      const code = await stopping.exited;
      const exitMs = Date.now() - signalled;
      await sleep(300);
      reading = false;
      await reader;

      const expected: string[] = [];
      for (const [i, { first, retried }] of outcomes.entries()) {
        assert.ok(
          'status' in first,
          `write ${i} on the stopping instance got no answer: ${JSON.stringify(first)}`,
        );
        assert.ok([200, 503].includes(first.status), `write ${i}: ${first.status} ${first.body}`);
        if (first.status === 503) {
          assert.equal(first.headers['retry-after'], '1');
          assert.equal(first.headers.connection, 'close');
          assert.equal(retried?.status, 200, `write ${i} failed over: ${retried?.text}`);
        }
        expected.push((first.status === 200 ? 50 + i : 60 + i).toFixed(2));
      }
      const refused = outcomes.filter((o) => 'status' in o.first && o.first.status === 503).length;
      t.diagnostic(
        `stopping instance: ${outcomes.length - refused} writes served, ${refused} refused 503 and failed over; other instance: ${reads.length} reads`,
      );
      assert.equal(code, 0, stopping.output());
      assert.ok(exitMs < 5000, `the stopped instance exited ${exitMs} ms after SIGTERM`);
      assert.ok(reads.length > 0);
      assert.deepEqual(
        reads.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.text}`),
        [],
        'every read on the other instance was served',
      );
      assert.deepEqual(
        await prices(databaseUrl, products),
        expected,
        'each edit is there once, from whichever instance answered 200',
      );
      assert.equal((await http(`${serving.url}/readyz`)).status, 200);
    },
  );
});
