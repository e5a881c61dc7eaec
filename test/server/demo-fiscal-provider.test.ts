// The demo offline: `serve` on the demo data without FISCAL_PROVIDER_URL runs the fiscal simulator
// in its own process and the NF-e detail answers from it; with FISCAL_PROVIDER_URL set, or on data
// that is not the demo's, nothing changes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { holdsDemoData } from '../../src/admin/demo-fiscal-provider.ts';
import { simulatorLine, startService } from '../../src/cli/serve.ts';
import { parseConfig } from '../../src/config.ts';
import { loadDemo } from '../../src/demo/demo.ts';
import { startFiscalSimulator } from '../../src/fiscal-simulator/fiscal-simulator.ts';
import { buildProviderDocument } from '../../src/fiscal-simulator/simulator-documents.ts';
import { encryptSecret } from '../../src/lib/encryption.ts';
import { seededDataDir } from '../cli/cli-process.ts';
import { buildTestApp, testConfig } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { accessKey, insertBrand, insertNote, insertRestaurant, NFE_SCOPE } from '../support/nfe-world.ts';
import { bearerFor } from '../support/tokens.ts';

const SECRETS = {
  FISCAL_TOKEN_KEY: 'demo-offline-fiscal-token-key-of-32-chars',
  RESTAURANT_SESSION_SECRET: 'demo-offline-session-secret-of-32-chars!',
};

async function accessToken(app: FastifyInstance, apiKey: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    payload: new URLSearchParams({ grant_type: 'api_key', api_key: apiKey }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().access_token;
}

/** Whether anything answers HTTP at `url` now. */
const answers = (url: string) =>
  fetch(url, { signal: AbortSignal.timeout(2000) }).then(
    () => true,
    () => false,
  );

test('serve on the demo data without FISCAL_PROVIDER_URL answers the NF-e detail from its own simulator', async (t) => {
  const dataDir = await seededDataDir(t);
  const env = { DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'silent', ...SECRETS };
  const first = await startService(parseConfig(env));
  let stopped = false;
  t.after(() => (stopped ? undefined : first.server.stop()));
  const { server, demo, fiscalSimulator } = first;
  assert.ok(demo, 'the empty embedded database got the demo');
  const apiKey = demo.api_keys.find((k) => k.restaurant_ids.join() === '1')!.api_key;
  const authorization = `Bearer ${await accessToken(server.app, apiKey)}`;
  const { db } = server.database;
  const notes = await db
    .selectFrom('nfe_received')
    .select(['id', 'access_key', 'complete'])
    .where('restaurant_id', '=', 1)
    .orderBy('id')
    .execute();
  const complete = notes.find((n) => n.complete)!;
  const summary = notes.find((n) => !n.complete)!;
  const detail = (app: FastifyInstance, id: number) =>
    app.inject({ url: `/v1/nfe-received/info/${id}`, headers: { authorization } });

  await t.test('the simulator listens on 127.0.0.1 and the banner says so in one line', () => {
    assert.match(fiscalSimulator ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(server.app.ctx.fiscalSimulator?.url, fiscalSimulator);
    const line = simulatorLine(fiscalSimulator!);
    assert.doesNotMatch(line, /\n/);
    assert.match(line, /FISCAL_PROVIDER_URL/);
    assert.ok(line.includes(fiscalSimulator!));
  });

  await t.test(
    'a complete demo note answers 200 with the invoice and protocol the simulator made',
    async () => {
      const res = await detail(server.app, complete.id);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.identification.access_key, complete.access_key);
      assert.ok(body.invoice);
      assert.equal(body.protocol.motivo, 'Autorizado o uso da NF-e');
    },
  );

  await t.test(
    'a demo note the provider holds only as a summary answers 200 without the invoice',
    async () => {
      const res = await detail(server.app, summary.id);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().invoice, null);
    },
  );

  await t.test('the simulator stops with the server', async () => {
    assert.equal(await answers(fiscalSimulator!), true);
    await server.stop();
    stopped = true;
    assert.equal(await answers(fiscalSimulator!), false);
  });

  await t.test('a restart on the demo data starts it again before it listens', async (s) => {
    const again = await startService(parseConfig(env));
    s.after(() => again.server.stop());
    assert.equal(again.demo, undefined, 'the demo is not loaded twice');
    assert.match(again.fiscalSimulator ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await detail(again.server.app, complete.id)).statusCode, 200);
  });

  await t.test(
    'with FISCAL_PROVIDER_URL set the detail queries it, the simulator never starts',
    async (s) => {
      const configured = await startService(
        parseConfig({ ...env, FISCAL_PROVIDER_URL: 'http://127.0.0.1:1' }),
      );
      s.after(() => configured.server.stop());
      assert.equal(configured.fiscalSimulator, undefined);
      assert.equal(configured.server.app.ctx.fiscalSimulator, undefined);
      const res = await detail(configured.server.app, complete.id);
      assert.equal(res.statusCode, 502);
      assert.match(res.json().message, /unreachable.*FISCAL_PROVIDER_URL/);
    },
  );
});

test('the demo data is known by its fiscal credentials: only demo brands hold tokens, each its own', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { db } = database;
  const key = testConfig().fiscalTokenKey!;
  assert.equal(await holdsDemoData(db, key), false, 'an empty database');
  await loadDemo(db, { fiscalTokenKey: key });
  assert.equal(await holdsDemoData(db, key), true, 'the demo');
  assert.equal(await holdsDemoData(db, 'another-fiscal-token-key-of-32-characters'), false, 'another key');

  const setToken = (id: number, token: string | null) =>
    db
      .updateTable('brands')
      .set({ fiscal_token_encrypted: token === null ? null : encryptSecret(token, key) })
      .where('id', '=', id)
      .execute();
  await setToken(11, 'a-real-token-of-the-restaurant');
  assert.equal(await holdsDemoData(db, key), false, 'a demo brand with a token of its own');
  await setToken(11, null);
  assert.equal(await holdsDemoData(db, key), true, 'fewer demo brands with tokens');
  await setToken(20, 'demo-fiscal-token-cantina-bella');
  assert.equal(await holdsDemoData(db, key), false, 'a demo token on another demo brand');
  await setToken(20, 'demo-fiscal-token-sabor-do-norte');
  await db
    .insertInto('brands')
    .values({ restaurant_id: 2, name: 'Própria', fiscal_token_encrypted: encryptSecret('own-token', key) })
    .execute();
  assert.equal(await holdsDemoData(db, key), false, 'a brand of its own with a token');
});

test('while the simulator runs, only a demo token is sent to it; a brand of its own queries FISCAL_PROVIDER_URL', async (t) => {
  const DEMO = 'demo-fiscal-token-cantina-bella';
  const REAL = 'a-real-token-of-the-restaurant';
  const key = accessKey(1);
  const notes = new Map([
    [
      key,
      buildProviderDocument({
        access_key: key,
        issuer_name: 'Sul',
        issuer_document: '1',
        total: '1.00',
        issued_at: '2026-01-10T13:00:00Z',
      }),
    ],
  ]);
  // Each provider knows one token: an answer 200 says which one was asked.
  const provider = await startFiscalSimulator({ notes, tokens: new Set([REAL]) });
  const simulator = await startFiscalSimulator({ notes, tokens: new Set([DEMO]) });
  t.after(() => Promise.all([provider.close(), simulator.close()]));
  const { app, ctx } = await buildTestApp(t, { config: { fiscalProviderUrl: provider.url } });
  ctx.fiscalSimulator = { url: simulator.url, tokens: new Set([DEMO]) };
  const restaurant = await insertRestaurant(ctx.db);
  const brand = await insertBrand(ctx.db, restaurant, ctx.secrets.fiscalTokenKey, { fiscalToken: REAL });
  const id = await insertNote(ctx.db, restaurant, { access_key: key, brand_id: brand });
  const { authorization } = await bearerFor(ctx.db, [restaurant], [NFE_SCOPE]);
  const detail = () => app.inject({ url: `/v1/nfe-received/info/${id}`, headers: { authorization } });

  assert.equal((await detail()).statusCode, 200, 'the real token went to the configured provider');
  await ctx.db
    .updateTable('brands')
    .set({ fiscal_token_encrypted: encryptSecret(DEMO, ctx.secrets.fiscalTokenKey) })
    .where('id', '=', brand)
    .execute();
  assert.equal((await detail()).statusCode, 200, 'the demo token went to the simulator');
});
