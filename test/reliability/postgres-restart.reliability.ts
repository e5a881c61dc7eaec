// PostgreSQL stopped and started again under a stream of requests, on a private cluster (the
// machine's PostgreSQL is shared and never touched): every request ends within its bound as a
// success or a clean 503, /readyz reports the outage, the instances recover by themselves, and
// no bulk edit is half written.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { reliabilityWorld } from '../security/world.ts';
import {
  bearer,
  exchangeKey,
  freshDatabase,
  http,
  importFile,
  SECRETS,
  startInstance,
  tempDir,
} from './harness.ts';
import { checkBatches, startLoad, summarise } from './load.ts';
import { missingServices, privatePostgres, SHARED_REDIS } from './services.ts';

const SKIP = await missingServices();
const DOWN_MS = 3000;
const BOUND_MS = 10_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('PostgreSQL restarted under load', { skip: SKIP, timeout: 180_000 }, async (t) => {
  const cluster = await privatePostgres(t);
  if (typeof cluster === 'string') return t.skip(`no private PostgreSQL cluster: ${cluster}`);
  const databaseUrl = await freshDatabase(t, cluster.url);
  const { ids, data, keys } = reliabilityWorld({ products: 30, keys: 1 });
  await importFile(t, databaseUrl, data);
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: SHARED_REDIS,
    RATE_LIMIT_PER_MINUTE: '1000000',
    DATA_DIR: tempDir(t),
  };
  const instances = await Promise.all([startInstance(t, env), startInstance(t, env)]);
  const urls = instances.map((i) => i.url);
  // An access token is checked in the database on every request; a session is not: both paths.
  const { access_token } = await exchangeKey(urls[0], keys[0].key);
  const session = signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET);
  let turn = 0;
  const bulkIds = ids.a.products.slice(0, 20);
  const load = startLoad({
    urls,
    headers: () => bearer(turn++ % 2 ? session : access_token),
    bulkIds,
    boundMs: BOUND_MS,
  });

  const readiness: { at: number; url: string; status: number }[] = [];
  const origin = Date.now();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      for (const url of urls)
        readiness.push({
          at: Date.now() - origin,
          url,
          status: (await http(`${url}/readyz`, {}, 5000)).status,
        });
      await sleep(200);
    }
  })();

  await sleep(2000);
  const stoppedAt = Date.now() - origin;
  cluster.stop();
  const downAt = Date.now() - origin;
  await sleep(DOWN_MS);
  const startingAt = Date.now() - origin;
  cluster.start();
  const upAt = Date.now() - origin;
  const recovered: number[] = [];
  for (const url of urls) {
    const deadline = Date.now() + 30_000;
    while ((await http(`${url}/v1/products`, { headers: bearer(access_token) }, BOUND_MS)).status !== 200) {
      if (Date.now() > deadline) break;
      await sleep(50);
    }
    recovered.push(Date.now() - origin - upAt);
  }
  await sleep(2000);
  await load.stop();
  polling = false;
  await poller;

  const samples = load.samples;
  const failed = samples.filter((s) => s.status !== 200);
  const check = await checkBatches(databaseUrl, ids.a.restaurant, bulkIds);
  const bulkFailed = failed.filter((s) => s.kind === 'bulk');
  const inDoubt = bulkFailed.filter((s) => check.committed.has(s.batch!)).length;
  t.diagnostic(
    `stop took ${downAt - stoppedAt} ms, down ${upAt - downAt} ms; recovered ${recovered.join(' / ')} ms after start; ` +
      `${samples.length} requests, ${failed.length} failed (${JSON.stringify(summarise(failed))}); slowest ${Math.max(...samples.map((s) => s.ms))} ms; ` +
      `${check.committed.size} batches committed, ${bulkFailed.length} answered 503 of which ${inDoubt} had committed; partial: ${check.partial.length}`,
  );

  await t.test('every request ended within its bound, as a success or a 503 in the error model', () => {
    for (const s of failed) {
      assert.equal(s.status, 503, JSON.stringify(s));
      assert.equal(s.key, 'service_unavailable', JSON.stringify(s));
      assert.ok(s.errorId && s.retryAfter, JSON.stringify(s));
    }
    assert.ok(failed.length > 0, 'the outage was not seen by any request');
    assert.ok(Math.max(...samples.map((s) => s.ms)) < BOUND_MS);
  });

  await t.test('/readyz answered 503 while the database was down, and 200 before and after', () => {
    // A sample's time is taken when its answer arrives: the window ends before the start begins.
    const during = readiness.filter((r) => r.at > downAt + 300 && r.at < startingAt);
    assert.ok(during.length > 0 && during.every((r) => r.status === 503), JSON.stringify(during));
    assert.ok(readiness.filter((r) => r.at < stoppedAt).every((r) => r.status === 200));
    assert.deepEqual([...new Set(readiness.slice(-urls.length).map((r) => r.status))], [200]);
  });

  await t.test('the instances recovered by themselves, without a restart, within 5 s', () => {
    for (const ms of recovered) assert.ok(ms < 5000, `recovered after ${ms} ms`);
    for (const instance of instances) assert.equal(instance.child.exitCode, null, instance.output());
  });

  await t.test('no bulk edit was half written: every batch changed all its products or none', () => {
    assert.deepEqual(check.partial, []);
    assert.ok(check.uniform, 'the products do not all hold one batch');
    assert.equal(check.finalBatch, check.lastCommitted);
    for (const s of samples.filter((s) => s.kind === 'bulk' && s.status === 200))
      assert.ok(check.committed.has(s.batch!));
  });
});
