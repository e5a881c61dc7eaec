// Every 503 carries Retry-After, whichever path answers it: the error catalogue's 503s, a database
// that cannot serve now (on /v1, /readyz, the console and the token endpoint, there in OAuth's
// shape), and a server that is stopping (draining, then Fastify's own closing path, on new,
// kept-alive and pipelined requests). The rate limiter never answers 503: a store that fails is
// served uncounted (rate-limit.test.ts, redis-breaker.test.ts).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { APP_ERRORS, OAUTH_ERRORS } from '../../src/http/docs-errors.ts';
import { type AppError, errors } from '../../src/http/errors.ts';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { SESSION_COOKIE } from '../../src/modules/console/console-session.ts';
import { buildTestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';

/** The catalogue's factories that answer 503 when called without arguments. */
const UNAVAILABLE_FACTORIES = Object.entries(errors).flatMap(([name, make]) => {
  try {
    return (make as () => AppError)().statusCode === 503 ? [name] : [];
  } catch {
    return [];
  }
});

const pgError = (code: string) => Object.assign(new Error(`database error ${code}`), { code });

let heldStarted = false;
let release: () => void = () => {};
function routes(app: FastifyInstance) {
  app.get('/test/catalogue/:name', async (request) => {
    throw (errors as unknown as Record<string, () => AppError>)[(request.params as { name: string }).name]();
  });
  app.get('/test/out-of-slots', async () => {
    throw pgError('53300');
  });
  app.get('/test/held', async () => {
    heldStarted = true;
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    return { finished: true };
  });
}

function assertRetryAfter(headers: Record<string, unknown>, what: string) {
  assert.match(
    String(headers['retry-after']),
    /^[1-9]\d*$/,
    `${what}: Retry-After is a whole number of seconds`,
  );
}

/** Raw HTTP/1.1 over one socket: what arrives, as text, until the server closes it. */
function rawExchange(port: number) {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(received)));
  socket.on('error', () => {});
  return {
    send: (requests: string[]) => socket.write(requests.map((r) => `${r}\r\n`).join('')),
    received: () => received,
    closed,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: keep-alive\r\n`;

test('every 503 carries Retry-After', async (t) => {
  await t.test('each 503 of the error catalogue declares Retry-After (OAuth errors included)', () => {
    const samples = [...APP_ERRORS.values(), ...OAUTH_ERRORS.values()].filter((s) => s.status === 503);
    assert.ok(samples.length >= 2, 'the catalogue has 503s');
    for (const sample of samples) assert.ok(sample.headers.includes('retry-after'), sample.key);
    assert.deepEqual(UNAVAILABLE_FACTORIES.sort(), [
      'fiscalNotConfigured',
      'serviceUnavailable',
      'shuttingDown',
    ]);
  });

  const { app } = await buildTestApp(t, { routes });

  await t.test('each 503 of the catalogue is answered with Retry-After', async () => {
    for (const name of UNAVAILABLE_FACTORIES) {
      const res = await app.inject({ url: `/test/catalogue/${name}` });
      assert.equal(res.statusCode, 503, name);
      assertRetryAfter(res.headers, name);
      assert.ok(res.headers['x-error-id']);
    }
  });

  await t.test('a database out of connection slots is 503 with Retry-After', async () => {
    const res = await app.inject({ url: '/test/out-of-slots' });
    assert.equal(res.statusCode, 503);
    assert.equal(res.json().key, 'service_unavailable');
    assertRetryAfter(res.headers, 'out of slots');
  });

  await t.test("the token endpoint's 503 is temporarily_unavailable with Retry-After", async (t) => {
    t.mock.method(app.rateLimits.token, 'hit', async () => {
      throw pgError('53300');
    });
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=api_key&api_key=ck_test_anything',
    });
    assert.equal(res.statusCode, 503, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'error_description']);
    assert.equal(res.json().error, 'temporarily_unavailable');
    assertRetryAfter(res.headers, 'token endpoint');
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});

test('/readyz and the console answer a database that cannot serve with 503 and Retry-After', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close().catch(() => {}));
  const { app, ctx } = await buildTestApp(t, { database });
  database.ping = async () => {
    throw new Error('connection refused');
  };
  const ready = await app.inject({ url: '/readyz' });
  assert.equal(ready.statusCode, 503);
  assertRetryAfter(ready.headers, '/readyz');

  // A signed console cookie: the page reads its session from a database out of connection slots.
  const cookie = `${SESSION_COOKIE}=${signSession(1, 3600, ctx.secrets.sessionSecret)}`;
  t.mock.method(database.db, 'selectFrom', () => {
    throw pgError('53300');
  });
  const page = await app.inject({ url: '/console', headers: { cookie } });
  assert.equal(page.statusCode, 503, page.body.slice(0, 200));
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assertRetryAfter(page.headers, 'console');
});

test('a stopping server answers every request 503 with Retry-After and Connection: close', {
  timeout: 30_000,
}, async (t) => {
  const { app } = await buildTestApp(t, { routes });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };

  // A connection kept alive from before the stop, idle when it begins.
  const kept = rawExchange(port);
  kept.send([get('/healthz')]);
  for (let i = 0; i < 200 && !kept.received().includes('"ok"'); i++) await sleep(10);
  assert.match(kept.received(), /^HTTP\/1\.1 200/);

  app.drain();

  await t.test('every route, the token endpoint in OAuth shape, the console in HTML', async () => {
    const answers = {
      '/v1/menu': await app.inject({ url: '/v1/menu' }),
      '/healthz': await app.inject({ url: '/healthz' }),
      '/readyz': await app.inject({ url: '/readyz' }),
      '/no-such-route': await app.inject({ url: '/no-such-route' }),
      '/console/login': await app.inject({ url: '/console/login' }),
      '/oauth/token': await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'grant_type=api_key&api_key=ck_test_anything',
      }),
    };
    for (const [path, res] of Object.entries(answers)) {
      assert.equal(res.statusCode, 503, `${path}: ${res.body.slice(0, 200)}`);
      assertRetryAfter(res.headers, path);
      assert.equal(res.headers.connection, 'close', path);
    }
    assert.equal(answers['/v1/menu'].json().key, 'service_unavailable');
    assert.match(answers['/v1/menu'].json().message, /shutting down/);
    assert.equal(answers['/oauth/token'].json().error, 'temporarily_unavailable');
    assert.equal(answers['/oauth/token'].headers['cache-control'], 'no-store');
    assert.match(String(answers['/console/login'].headers['content-type']), /^text\/html/);
  });

  await t.test(
    'a request on a connection kept alive from before the stop is answered, then closed',
    async () => {
      kept.send([get('/v1/menu')]);
      const second = (await kept.closed).split('HTTP/1.1 ')[2] ?? '';
      assert.match(second, /^503 /);
      assert.match(second, /\r\nretry-after: 1\r\n/i);
      assert.match(second, /\r\nconnection: close\r\n/i);
    },
  );
});

test("app.close() alone: Fastify's closing path answers 503 with Retry-After, not its own bare 503", async (t) => {
  const seen: { url: string; status: number; headers: Record<string, unknown> }[] = [];
  const { app } = await buildTestApp(t, {
    routes: (app) => {
      routes(app);
      app.addHook('onSend', async (request, reply, payload) => {
        seen.push({ url: request.url, status: reply.statusCode, headers: reply.getHeaders() });
        return payload;
      });
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const busy = rawExchange(port);
  busy.send([get('/test/held')]);
  for (let i = 0; i < 200 && !heldStarted; i++) await sleep(10);
  assert.ok(heldStarted, 'the held request runs');
  const closing = app.close();
  await sleep(50);
  // Routed while the app closes: only a request on a connection that is not idle gets here.
  busy.send([get('/healthz')]);
  await sleep(50);
  release();
  const text = await busy.closed;
  await closing;
  const late = seen.find((s) => s.url === '/healthz');
  assert.ok(late, 'the request sent during close() was routed');
  assert.equal(late.status, 503);
  assert.equal(late.headers['retry-after'], '1');
  assert.equal(late.headers.connection, 'close');
  // The answer in flight tells the client the connection ends with it (a client that pipelined
  // more requests behind it sends them again: RFC 9112 9.3.2).
  assert.match(text, /^HTTP\/1\.1 200 /);
  assert.match(text, /\r\nconnection: close\r\n/i);
});
