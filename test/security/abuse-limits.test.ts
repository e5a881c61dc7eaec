// Limits an attacker meets however the requests are shaped: forged client_ids on the token
// endpoint (a new one per request, or 60 KB ones) and wrong console passwords sent all at once.
// With REDIS_URL set they run on the shared store as well as in memory.
import assert from 'node:assert/strict';
import crypto, { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import type { Config } from '../../src/config.ts';
import { SIGN_IN_LIMITS, SIGN_IN_WINDOW_MS } from '../../src/modules/console/sign-in-limiter.ts';
import { addStaff, csrfOf, PASSWORD, seedRestaurants, Visitor } from '../modules/console/support.ts';
import { buildTestApp } from '../support/app.ts';

const STORES: [string, Partial<Config>][] = [
  ['memory', {}],
  ...(process.env.REDIS_URL
    ? [['Redis', { redisUrl: process.env.REDIS_URL }] as [string, Partial<Config>]]
    : []),
];
const TOKEN_LIMIT = 60;

/** An address no earlier run used, so counters left in a shared Redis never collide. */
const freshAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** Counts the password hashes computed (scrypt) while `work` runs. */
async function hashesDuring(t: { mock: typeof test.mock }, work: () => Promise<unknown>): Promise<number> {
  const scrypt = t.mock.method(crypto, 'scrypt');
  syncBuiltinESMExports();
  try {
    await work();
    return scrypt.mock.callCount();
  } finally {
    scrypt.mock.restore();
    syncBuiltinESMExports();
  }
}

for (const [store, config] of STORES) {
  test(`forged client_ids meet the address budget (${store})`, async (t) => {
    const { app } = await buildTestApp(t, { config: { ...config, tokenRateLimitPerMinute: TOKEN_LIMIT } });
    const guess = (address: string, clientId: string) =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        remoteAddress: address,
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: 'guess',
        }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    for (const [shape, clientId] of [
      ['a new client_id on every request', () => `forged-${randomUUID()}`],
      ['60 KB client_ids', () => randomBytes(30 * 1024).toString('hex')],
    ] as const) {
      await t.test(`${shape}: the request after ${TOKEN_LIMIT} failures is 429`, async () => {
        const address = freshAddress();
        const statuses: number[] = [];
        for (let i = 0; i <= TOKEN_LIMIT; i++) statuses.push((await guess(address, clientId())).statusCode);
        assert.deepEqual(statuses, [...Array(TOKEN_LIMIT).fill(401), 429]);
      });
    }
  });

  test(`30 parallel wrong console passwords (${store})`, async (t) => {
    const { app, ctx } = await buildTestApp(t, { config: { ...config, logLevel: 'silent' } });
    const [bella] = await seedRestaurants(ctx.db, ['Cantina Bella']);
    const email = `staff-${randomUUID()}@example.com`;
    await addStaff(ctx.db, email, [bella]);
    const address = freshAddress();
    const visitors = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const visitor = new Visitor(app, address);
        await visitor.get('/console/login');
        return visitor;
      }),
    );
    let statuses: number[] = [];
    const hashes = await hashesDuring(t, async () => {
      statuses = await Promise.all(
        visitors.map(async (visitor) => {
          const csrf = csrfOf((await visitor.get('/console/login')).body);
          return (await visitor.post('/console/login', { csrf, email, password: 'wrong password!' }))
            .statusCode;
        }),
      );
    });
    await t.test('at most 5 passwords are checked, the others get the limit answer', () => {
      assert.ok(hashes <= SIGN_IN_LIMITS.account, `${hashes} passwords checked`);
      assert.equal(statuses.filter((s) => s === 401).length, hashes);
      assert.equal(statuses.filter((s) => s === 429).length, 30 - hashes);
    });
    await t.test('the right password is refused until the window passes', async (t) => {
      assert.equal((await new Visitor(app, freshAddress()).signIn(email, PASSWORD)).statusCode, 429);
      if (store !== 'memory') return;
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() + SIGN_IN_WINDOW_MS + 1000 });
      assert.equal((await new Visitor(app, freshAddress()).signIn(email, PASSWORD)).statusCode, 303);
    });
  });
}
