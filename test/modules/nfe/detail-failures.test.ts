import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { sql } from 'kysely';
import { startFiscalSimulator } from '../../../src/fiscal-simulator/fiscal-simulator.ts';
import type { ProviderDocument } from '../../../src/fiscal-simulator/simulator-documents.ts';
import { isUnreachable } from '../../../src/lib/network-errors.ts';
import { buildTestApp } from '../../support/app.ts';
import {
  accessKey,
  insertBrand,
  insertNote,
  insertRestaurant,
  NFE_SCOPE,
  providerDocumentOf,
} from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';

const TOKEN = 'tok-SECRET-c0ffee-9f8e7d';
const REFUSED_TOKEN = 'tok-SECRET-refused-55aa';
const UPSTREAM = {
  statusCode: 502,
  message: 'The fiscal provider query failed. Retry later.',
  key: 'fiscal_upstream_error',
};
const UNREACHABLE = {
  statusCode: 502,
  message:
    'The fiscal provider is unreachable (DNS, connection or TLS failure): check the server setting FISCAL_PROVIDER_URL.',
  key: 'fiscal_upstream_error',
};
const NOT_CONFIGURED = {
  statusCode: 503,
  message: 'The brand has no fiscal provider credential configured.',
  key: 'fiscal_not_configured',
};

/** A port of 127.0.0.1 nothing listens on: one the system gave, then closed. */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

test('failures of reaching the provider: DNS, refused connections and TLS, whatever wraps them', () => {
  const failed = (code: string) => Object.assign(new Error(`getaddrinfo ${code} api.example`), { code });
  for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'UND_ERR_CONNECT_TIMEOUT']) {
    assert.equal(isUnreachable(failed(code)), true, code);
  }
  for (const code of ['CERT_HAS_EXPIRED', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
    assert.equal(isUnreachable(failed(code)), true, code);
  }
  assert.equal(isUnreachable(new TypeError('fetch failed', { cause: failed('ENOTFOUND') })), true);
  assert.equal(isUnreachable(new AggregateError([failed('ECONNREFUSED'), failed('ECONNREFUSED')])), true);
  for (const other of [failed('ECONNRESET'), failed('UND_ERR_SOCKET'), new Error('unexpected status'), 'x']) {
    assert.equal(isUnreachable(other), false, String(other));
  }
});

test('failures of GET /v1/nfe-received/info/{id}', async (t) => {
  const documents = new Map<string, ProviderDocument | string>();
  const simulator = await startFiscalSimulator({
    notes: documents,
    tokens: new Set([TOKEN]),
    slowMs: 3000,
    requestsPerMinute: 100_000,
  });
  t.after(() => simulator.close());
  const log = new PassThrough();
  let logged = '';
  log.on('data', (chunk) => {
    logged += chunk;
  });
  const config = { fiscalProviderUrl: simulator.url, logLevel: 'info' };
  const { app, ctx, database } = await buildTestApp(t, { config, logStream: log });
  const db = ctx.db;
  const key = ctx.secrets.fiscalTokenKey;

  const main = await insertRestaurant(db, 'Main');
  const bella = await insertBrand(db, main, key, { isDefault: true, fiscalToken: TOKEN });
  const refused = await insertBrand(db, main, key, { name: 'Recusada', fiscalToken: REFUSED_TOKEN });
  const unconfigured = await insertBrand(db, main, key, { name: 'Sem token', fiscalToken: null });
  const empty = await insertBrand(db, main, key, { name: 'Token vazio', storedToken: '' });
  const garbled = await insertBrand(db, main, key, { name: 'Ilegivel', storedToken: 'v1:AAAA:BBBB:CCCC' });
  const other = await insertRestaurant(db, 'Other');

  let numbers = 700;
  async function note(brand_id: number | null, restaurant = main, served = true) {
    numbers += 1;
    const access_key = accessKey(numbers);
    const id = await insertNote(db, restaurant, { access_key, brand_id });
    if (served) {
      documents.set(access_key, providerDocumentOf(access_key));
    }
    return id;
  }
  const good = await note(bella);
  const otherNote = await note(null, other);

  const { authorization } = await bearerFor(db, [main], [NFE_SCOPE]);
  const detail = (id: number | string, credential = authorization, target = app) =>
    target.inject({
      method: 'GET',
      url: `/v1/nfe-received/info/${id}`,
      headers: { authorization: credential },
    });
  /** The answer, and whether the provider was queried for it. */
  const call = async (id: number | string, credential = authorization) => {
    const before = simulator.requestCount();
    const res = await detail(id, credential);
    return { res, queried: simulator.requestCount() > before };
  };
  const assertUpstream = async (id: number, leak?: RegExp) => {
    const { res, queried } = await call(id);
    assert.equal(res.statusCode, 502, res.body);
    assert.deepEqual(res.json(), UPSTREAM);
    assert.ok(res.headers['x-error-id']);
    assert.equal(queried, true);
    if (leak) assert.doesNotMatch(res.body, leak);
  };

  await t.test('the provider answering is the baseline', async () => {
    assert.equal((await detail(good)).statusCode, 200);
  });

  await t.test(
    'a token the provider refuses (403) is a 502 that does not relay the provider body',
    async () => {
      await assertUpstream(await note(refused), /permissao_negada|Token invalido/);
    },
  );

  await t.test('a key the provider does not know (404) is a 502', async () => {
    await assertUpstream(await note(bella, main, false), /nao_encontrado/);
  });

  for (const [mode, leak] of [
    ['rate_limited', /limite_excedido/],
    ['server_error', /erro_interno/],
    ['redirect', /elsewhere/],
    ['invalid_json', /chave_nfe/],
    ['oversized', /padding/],
  ] as const) {
    await t.test(`a provider answering ${mode} is a 502`, async (s) => {
      simulator.setMode(mode);
      s.after(() => simulator.setMode('ok'));
      await assertUpstream(good, leak);
    });
  }

  await t.test('a provider slower than FISCAL_TIMEOUT_MS is a 502 without waiting for it', async (s) => {
    const quick = await buildTestApp(s, {
      database,
      logStream: log,
      config: { ...config, fiscalTimeoutMs: 300 },
    });
    simulator.setMode('slow');
    s.after(() => simulator.setMode('ok'));
    const started = Date.now();
    const res = await detail(good, authorization, quick.app);
    assert.equal(res.statusCode, 502);
    assert.deepEqual(res.json(), UPSTREAM);
    assert.ok(Date.now() - started < 2500, `took ${Date.now() - started} ms`);
  });

  await t.test('a provider body that is not the expected document is a 502', async () => {
    const id = await note(bella);
    documents.set(accessKey(numbers), '{"chave_nfe": "x", "situacao": 1}');
    await assertUpstream(id);
  });

  await t.test("another note's document, or one whose protocol names another key, is a 502", async () => {
    const asked = await note(bella);
    const stranger = accessKey(numbers + 1000);
    const document = documents.get(accessKey(numbers)) as ProviderDocument;
    documents.set(accessKey(numbers), { ...document, chave_nfe: stranger });
    await assertUpstream(asked, new RegExp(stranger));
    assert.match(logged, new RegExp(`the document names another access key \\(${stranger}\\)`));
    const protocol = document.protocolo_nota_fiscal as Record<string, unknown>;
    documents.set(accessKey(numbers), {
      ...document,
      protocolo_nota_fiscal: { ...protocol, chave_nfe: stranger },
    });
    await assertUpstream(asked);
    documents.set(accessKey(numbers), { ...document, chave_nfe: `NFe${accessKey(numbers)}` });
    assert.equal((await detail(asked)).statusCode, 200, 'the key with its NFe prefix is the same key');
  });

  for (const [what, providerUrl] of [
    ['a refused connection (a closed port)', async () => `http://127.0.0.1:${await closedPort()}`],
    [
      'a TLS handshake that fails (https to a plain HTTP server)',
      async () => simulator.url.replace('http:', 'https:'),
    ],
  ] as const) {
    await t.test(
      `${what} is a 502 saying the provider is unreachable and to check FISCAL_PROVIDER_URL`,
      async (s) => {
        const unreachable = await buildTestApp(s, {
          database,
          logStream: log,
          config: { fiscalProviderUrl: await providerUrl(), logLevel: 'info' },
        });
        const res = await detail(good, authorization, unreachable.app);
        assert.equal(res.statusCode, 502);
        assert.deepEqual(res.json(), UNREACHABLE);
        assert.doesNotMatch(res.json().message, /Retry later/);
        assert.doesNotMatch(res.body, /SECRET|tok-/);
      },
    );
  }

  await t.test('a brand without a token is 503 and the provider is not called', async () => {
    for (const brand of [unconfigured, empty]) {
      const { res, queried } = await call(await note(brand));
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), NOT_CONFIGURED);
      assert.equal(res.headers['retry-after'], '3600', 'an operator must act: a client waits an hour');
      assert.equal(queried, false);
    }
  });

  await t.test(
    'a note without a brand whose default brand has no token is 503, even if another brand has one',
    async () => {
      const restaurant = await insertRestaurant(db, 'Default without token');
      await insertBrand(db, restaurant, key, { isDefault: true, fiscalToken: null });
      await insertBrand(db, restaurant, key, { name: 'Outra', fiscalToken: TOKEN });
      const id = await note(null, restaurant);
      const credential = await bearerFor(db, [restaurant], [NFE_SCOPE]);
      const { res, queried } = await call(id, credential.authorization);
      assert.deepEqual(res.json(), NOT_CONFIGURED);
      assert.equal(queried, false);
    },
  );

  await t.test('a note without a brand in a restaurant without brands is 503', async () => {
    const credential = await bearerFor(db, [other], [NFE_SCOPE]);
    const { res, queried } = await call(otherNote, credential.authorization);
    assert.deepEqual(res.json(), NOT_CONFIGURED);
    assert.equal(queried, false);
  });

  await t.test(
    'a stored token the configured key cannot open is a 500 asking to contact support',
    async () => {
      const { res, queried } = await call(await note(garbled));
      assert.equal(res.statusCode, 500);
      assert.equal(res.json().key, 'data_validation_failed');
      assert.match(res.json().message, /X-Error-Id/);
      assert.ok(res.headers['x-error-id']);
      assert.equal(queried, false);
    },
  );

  await t.test(
    'an unknown id and another restaurant note are the same 404, without a provider query',
    async () => {
      const unknown = await call(2147483647);
      const foreign = await call(otherNote);
      for (const { res, queried } of [unknown, foreign]) {
        assert.equal(res.statusCode, 404);
        assert.equal(queried, false);
      }
      assert.equal(unknown.res.json().key, 'nfe_not_found');
      assert.deepEqual(foreign.res.json(), unknown.res.json());
    },
  );

  for (const id of ['abc', '0', '-5', '1.5', '01', '1e3', '2147483648', '99999999999']) {
    await t.test(`the id "${id}" is 400 invalid_parameter`, async () => {
      const { res, queried } = await call(id);
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.json().key, 'invalid_parameter');
      assert.equal(res.json().errors[0].field, 'nfe_received_id');
      assert.equal(queried, false);
    });
  }

  await t.test('an unknown query parameter is 400 invalid_query, without a provider query', async () => {
    const { res, queried } = await call(`${good}?completa=0`);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'invalid_query');
    assert.deepEqual(res.json().errors, [{ field: 'completa', message: 'is not an accepted field' }]);
    assert.equal(queried, false);
  });

  await t.test('a local note that breaks the expected shape is a 500 data validation failure', async () => {
    await sql`alter table nfe_received drop constraint nfe_received_access_key_check`.execute(db);
    const restaurant = await insertRestaurant(db, 'Broken row');
    await insertBrand(db, restaurant, key, { isDefault: true, fiscalToken: TOKEN });
    const id = await insertNote(db, restaurant, { access_key: '3526011234567800019955001000000001' });
    const credential = await bearerFor(db, [restaurant], [NFE_SCOPE]);
    const headers = { authorization: credential.authorization };
    const before = simulator.requestCount();
    const one = await app.inject({ method: 'GET', url: `/v1/nfe-received/info/${id}`, headers });
    const list = await app.inject({
      method: 'GET',
      url: '/v1/nfe-received?start_date=2026-01-01T00:00:00Z&end_date=2026-01-31T00:00:00Z',
      headers,
    });
    for (const res of [one, list]) {
      assert.equal(res.statusCode, 500);
      assert.equal(res.json().key, 'data_validation_failed');
      assert.match(res.json().message, /contact support with the X-Error-Id/);
    }
    assert.equal(simulator.requestCount(), before);
  });

  await t.test(
    'no fiscal token, in clear, as Basic credentials or encrypted, ever reaches the log',
    async () => {
      await new Promise((resolve) => setImmediate(resolve));
      assert.match(logged, /fiscal provider query failed/);
      const stored = await db.selectFrom('brands').select('fiscal_token_encrypted').execute();
      const secrets = [TOKEN, REFUSED_TOKEN, 'SECRET'];
      for (const token of [TOKEN, REFUSED_TOKEN]) secrets.push(Buffer.from(`${token}:`).toString('base64'));
      for (const row of stored) if (row.fiscal_token_encrypted) secrets.push(row.fiscal_token_encrypted);
      for (const secret of secrets) assert.equal(logged.includes(secret), false, `the log holds ${secret}`);
    },
  );
});
