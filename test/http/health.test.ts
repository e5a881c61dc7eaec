import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';

test('health, readiness and metrics', async (t) => {
  const { app } = await buildTestApp(t);

  await t.test('/healthz answers while the process is alive', async () => {
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  await t.test('/readyz answers 200 when the database answers', async () => {
    const res = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().status, 'ready');
  });

  await t.test(
    '/metrics exposes request histograms by route and status, the pool and the process',
    async () => {
      await app.inject({ method: 'GET', url: '/healthz' });
      await app.inject({ method: 'GET', url: '/no-such-route' });
      const res = await app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['content-type'] as string, /text\/plain/);
      assert.match(
        res.body,
        /http_request_duration_seconds_bucket\{[^}]*route="\/healthz"[^}]*status_code="200"/,
      );
      assert.match(res.body, /http_request_duration_seconds_count\{[^}]*status_code="404"/);
      assert.match(res.body, /db_pool_connections_total\{database="(pglite|postgres)"\}/);
      assert.match(res.body, /process_resident_memory_bytes/);
    },
  );
});

test('/readyz answers 503 with the error model when the database does not answer', async (t) => {
  const database = await createTestDatabase();
  const { app } = await buildTestApp(t, { database });
  t.after(() => database.close().catch(() => {}));
  database.ping = async () => {
    throw new Error('connection refused');
  };
  const res = await app.inject({ method: 'GET', url: '/readyz' });
  assert.equal(res.statusCode, 503);
  assert.equal(res.json().key, 'service_unavailable');
  assert.ok(res.headers['x-error-id']);
  assert.doesNotMatch(res.body, /refused/);
});

test('/readyz asks the database once for all the requests that arrive while it waits: a flood of probes takes one pool connection, not one each', async (t) => {
  const database = await createTestDatabase();
  const { app } = await buildTestApp(t, { database });
  t.after(() => database.close().catch(() => {}));
  const ping = database.ping.bind(database);
  let pings = 0;
  database.ping = async () => {
    pings++;
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ping();
  };
  const answers = await Promise.all(
    Array.from({ length: 50 }, () => app.inject({ method: 'GET', url: '/readyz' })),
  );
  assert.deepEqual(new Set(answers.map((res) => res.statusCode)), new Set([200]));
  assert.equal(pings, 1);
  // Settled, the next probe asks again.
  assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  assert.equal(pings, 2);
});
