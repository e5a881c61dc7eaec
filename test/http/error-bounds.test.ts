import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { FULL_CHECK_VALUES } from '../../src/http/validation.ts';
import { logCapture } from '../modules/auth/support.ts';
import { buildTestApp, echoRoute } from '../support/app.ts';

const ANSWER_BOUND = 8 * 1024;
const LOG_LINE_BOUND = 16 * 1024;

function testRoutes(app: FastifyInstance) {
  echoRoute(app);
  app.get('/test/huge-failure', async () => {
    throw Object.assign(new Error(`boom ${'m'.repeat(100_000)}`), { detail: 'd'.repeat(100_000) });
  });
}

const unknownKeys = (count: number) =>
  JSON.stringify(Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1])));

test('error answers and log lines are bounded', async (t) => {
  const { logStream, text } = logCapture();
  const { app } = await buildTestApp(t, { routes: testRoutes, logStream, config: { logLevel: 'info' } });
  const post = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/test/echo',
      payload,
      headers: { 'content-type': 'application/json' },
    });
  const longestLogLine = () =>
    Math.max(
      ...text()
        .split('\n')
        .map((line) => line.length),
    );

  await t.test('a body with 100 unknown fields lists 20 problems and counts the 80 others', async () => {
    const res = await post(unknownKeys(100));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_body');
    assert.equal(res.json().errors.length, 20);
    assert.match(res.json().message, /; and 81 more problems\.$/, 'the 100 keys and the missing price');
  });

  await t.test('60,000 unknown keys in a 650 KB body earn a small answer and small log lines', async () => {
    const payload = unknownKeys(60_000);
    assert.ok(payload.length > 600_000);
    const res = await post(payload);
    assert.equal(res.statusCode, 400);
    assert.ok(res.body.length < ANSWER_BOUND, `${res.body.length} bytes answered`);
    assert.ok(longestLogLine() < LOG_LINE_BOUND, `a log line of ${longestLogLine()} characters`);
  });

  await t.test(
    `a body of over ${FULL_CHECK_VALUES} values is checked only up to its first problem`,
    async () => {
      const res = await post(unknownKeys(FULL_CHECK_VALUES + 1));
      assert.equal(res.json().errors.length, 2);
      assert.deepEqual(res.json().errors[0], { field: 'price', message: 'is required' });
      assert.deepEqual(res.json().errors[1], {
        field: '',
        message: `has more problems: a request of over ${FULL_CHECK_VALUES} values is not checked further`,
      });
      const within = await post(unknownKeys(FULL_CHECK_VALUES - 1));
      assert.match(within.json().message, /and 9980 more problems/, 'a smaller body is checked whole');
    },
  );

  await t.test('a 60 KB field name is cut in the answer and the log', async () => {
    const res = await post(JSON.stringify({ price: 1, ['x'.repeat(60_000)]: 1 }));
    assert.equal(res.statusCode, 400);
    assert.ok(res.body.length < ANSWER_BOUND, `${res.body.length} bytes answered`);
    assert.ok(res.json().errors[0].field.length <= 200);
    assert.ok(longestLogLine() < LOG_LINE_BOUND, `a log line of ${longestLogLine()} characters`);
  });

  await t.test('an unexpected error carrying 200 KB is logged cut', async () => {
    const res = await app.inject({ url: '/test/huge-failure' });
    assert.equal(res.statusCode, 500);
    assert.match(text(), /"detail":"d{100}/, 'the detail is logged');
    assert.ok(longestLogLine() < LOG_LINE_BOUND, `a log line of ${longestLogLine()} characters`);
  });

  await t.test('a token request naming a 60 KB grant_type gets a cut description', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      payload: `grant_type=${'g'.repeat(60_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.json().error, 'unsupported_grant_type');
    assert.ok(res.body.length < ANSWER_BOUND, `${res.body.length} bytes answered`);
    assert.ok(longestLogLine() < LOG_LINE_BOUND, `a log line of ${longestLogLine()} characters`);
  });
});
