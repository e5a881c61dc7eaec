// SIGTERM to a server whose clients hold kept-alive connections: every request sent on them in the
// moments after the signal gets an HTTP answer (served, or 503 with Retry-After and Connection:
// close), none finds its connection closed under it, and the process then exits 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { reliabilityWorld } from '../security/world.ts';
import {
  freshDatabase,
  importFile,
  keptAlive,
  type RawAnswer,
  SECRETS,
  startInstance,
  tempDir,
} from './harness.ts';
import { missingServices, SHARED_POSTGRES } from './services.ts';

const SKIP = await missingServices();
const CONNECTIONS = 24;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('SIGTERM with kept-alive connections', { skip: SKIP, timeout: 120_000 }, async (t) => {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data } = reliabilityWorld({ products: 5, keys: 1 });
  await importFile(t, databaseUrl, data);
  const authorization = `Bearer ${signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET)}`;
  const instance = await startInstance(t, {
    DATABASE_URL: databaseUrl,
    DATA_DIR: tempDir(t),
    RATE_LIMIT_PER_MINUTE: '100000',
  });
  const connections = await Promise.all(Array.from({ length: CONNECTIONS }, () => keptAlive(instance.url)));
  t.after(() => {
    for (const connection of connections) connection.destroy();
  });
  for (const connection of connections) {
    const answer = await connection.send('/v1/menu', { authorization });
    assert.equal('status' in answer && answer.status, 200, JSON.stringify(answer));
  }
  assert.ok(
    connections.every((c) => !c.closed()),
    'every connection is kept alive before the signal',
  );

  instance.child.kill('SIGTERM');
  const signalled = Date.now();
  // At once and spread over the next half second, as clients' next requests would come.
  const answers: RawAnswer[] = await Promise.all(
    connections.map(async (connection, i) => {
      await sleep((i % 6) * 100);
      return connection.send('/v1/menu', { authorization });
    }),
  );
  const code = await instance.exited;
  const exitMs = Date.now() - signalled;

  const served = answers.filter((a) => 'status' in a && a.status === 200).length;
  const refused = answers.filter((a) => 'status' in a && a.status === 503).length;
  t.diagnostic(`${CONNECTIONS} kept-alive requests after SIGTERM: ${served} served, ${refused} refused 503`);
  for (const answer of answers) {
    assert.ok('status' in answer, `a request got no answer: ${JSON.stringify(answer)}`);
    assert.ok([200, 503].includes(answer.status), `${answer.status} ${answer.body}`);
    if (answer.status === 503) {
      assert.equal(JSON.parse(answer.body).key, 'service_unavailable');
      assert.equal(answer.headers['retry-after'], '1');
      assert.equal(answer.headers.connection, 'close');
    }
  }
  assert.ok(refused > 0, 'some requests arrived while the server was stopping');
  assert.equal(code, 0, instance.output());
  assert.ok(exitMs < 5000, `exited ${exitMs} ms after SIGTERM`);
});
