// Request logs are Fastify's own (pino with logger.ts's redaction and serializers): each line
// carries its reqId and the route's log level, secrets are redacted, levels below are dropped.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../src/config.ts';
import { logCapture } from '../modules/auth/support.ts';
import { buildTestApp } from '../support/app.ts';

const routes = (app: FastifyInstance) => {
  app.get('/v1/test/quiet', async () => ({ ok: true }));
  app.get('/v1/test/warns', async (request) => {
    request.log.warn(
      { api_key: 'ck_live_secret', detail: 'x', body: { code: 'an-authorization-code' } },
      'something to see',
    );
    request.log.debug('not at this level');
    return { ok: true };
  });
  app.get('/v1/test/debug-route', { logLevel: 'debug' }, async (request) => {
    request.log.debug('a debug line of a debug route');
    return { ok: true };
  });
  app.get('/v1/test/nested', async (request) => {
    request.log.child({ part: 'inner' }).error('from a child');
    return { ok: true };
  });
};

async function appWith(t: Parameters<typeof buildTestApp>[0], logLevel: Config['logLevel']) {
  const { logStream, text } = logCapture();
  const { app } = await buildTestApp(t, { routes, logStream, config: { logLevel } });
  const lines = () =>
    text()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  return { app, lines };
}

test('request logs at warn', async (t) => {
  const { app, lines } = await appWith(t, 'warn');

  await t.test('a request that logs nothing writes no line at warn', async () => {
    assert.equal((await app.inject({ url: '/v1/test/quiet' })).statusCode, 200);
    assert.deepEqual(lines(), []);
  });

  await t.test(
    'a warning carries the reqId, is redacted (an authorization code in a body too), and levels below are dropped',
    async () => {
      await app.inject({ url: '/v1/test/warns' });
      const written = lines();
      assert.equal(written.length, 1);
      assert.equal(written[0].msg, 'something to see');
      assert.equal(written[0].level, 40);
      assert.match(String(written[0].reqId), /^req-/);
      assert.equal(written[0].api_key, '[redacted]');
      assert.equal(written[0].detail, 'x');
      assert.equal(written[0].body.code, '[redacted]');
    },
  );

  await t.test("a route's own level applies", async () => {
    await app.inject({ url: '/v1/test/debug-route' });
    const line = lines().find((l) => l.msg === 'a debug line of a debug route');
    assert.ok(line, 'the debug route logs at debug');
    assert.match(String(line.reqId), /^req-/);
  });

  await t.test("a request logger's child has both bindings", async () => {
    await app.inject({ url: '/v1/test/nested' });
    const line = lines().find((l) => l.msg === 'from a child');
    assert.equal(line?.part, 'inner');
    assert.match(String(line?.reqId), /^req-/);
  });
});

test('request logs at info: every request with its reqId', async (t) => {
  const { app, lines } = await appWith(t, 'info');
  await app.inject({ url: '/v1/test/quiet?api_key=secret' });
  const written = lines();
  const incoming = written.find((l) => l.msg === 'incoming request');
  const completed = written.find((l) => l.msg === 'request completed');
  assert.equal(incoming?.req.url, '/v1/test/quiet');
  assert.equal(incoming?.reqId, completed?.reqId);
  assert.equal(completed?.res.statusCode, 200);
  assert.doesNotMatch(JSON.stringify(written), /secret/);
});

test("a stopping server logs each 503 it answers at info without a stack; a database fault stays an error with its cause and its error's code", async (t) => {
  const { logStream, text } = logCapture();
  const { app } = await buildTestApp(t, {
    logStream,
    config: { logLevel: 'info' },
    routes: (app) => {
      app.get('/v1/test/out-of-slots', async () => {
        throw Object.assign(new Error('sorry, too many clients already'), { code: '53300' });
      });
    },
  });
  const answered = (res: { statusCode: number; headers: Record<string, unknown> }) => {
    assert.equal(res.statusCode, 503);
    const errorId = String(res.headers['x-error-id']);
    const line = text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.errorId === errorId);
    assert.ok(line, `a log line carries the X-Error-Id ${errorId}`);
    return line;
  };

  const fault = answered(await app.inject({ url: '/v1/test/out-of-slots' }));
  assert.equal(fault.level, 50);
  assert.equal(fault.msg, 'service_unavailable');
  assert.match(fault.err.stack, /sorry, too many clients already\n\s+at /);
  assert.equal(fault.err.code, '53300', "an error's code is logged: it is not a secret");

  app.drain();
  for (const url of ['/v1/menu', '/oauth/token', '/console/login']) {
    const line = answered(await app.inject({ method: url === '/oauth/token' ? 'POST' : 'GET', url }));
    assert.equal(line.level, 30, url);
    assert.equal(line.key, 'service_unavailable', url);
    assert.match(line.msg, /shutting down/, url);
    assert.doesNotMatch(JSON.stringify(line), /\n\s+at |"stack"/, url);
  }
});
