import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { request } from 'undici';
import {
  type FiscalSimulator,
  startFiscalSimulator,
} from '../../../src/fiscal-simulator/fiscal-simulator.ts';
import { buildProviderDocument } from '../../../src/fiscal-simulator/simulator-documents.ts';
import { AppError } from '../../../src/http/errors.ts';
import { createSlots } from '../../../src/lib/slots.ts';
import { fetchProviderAnswer } from '../../../src/modules/nfe/provider-client.ts';
import type { MappedProviderBody } from '../../../src/modules/nfe/provider-mapping.ts';

const TOKEN = 'tok-SECRET-9f8e7d';
const KEY = '35260112345678000199550010000012341000012345';
const SUMMARY_KEY = '35260112345678000199550010000099991000099990';
const ECHO_KEY = '35260112345678000199550010000077771000077770';
const BIG_KEY = '35260112345678000199550010000066661000066660';
const ODD_KEY = '35260112345678000199550010000055551000055550';
const note = {
  access_key: KEY,
  issuer_name: 'Distribuidora Sul',
  issuer_document: '12345678000199',
  total: '300.00',
  issued_at: '2026-01-10T13:00:00Z',
};

let simulator: FiscalSimulator;
let logged: { details: Record<string, unknown>; message: string }[] = [];
const logger = {
  warn: (details: Record<string, unknown>, message: string) => logged.push({ details, message }),
};
const fetchNote = (overrides: Partial<Parameters<typeof fetchProviderAnswer>[0]> = {}) =>
  fetchProviderAnswer({ baseUrl: simulator.url, token: TOKEN, accessKey: KEY, logger, ...overrides });

/** The invoice and protocol of a mapped answer, as JSON. */
const documentOf = (answer: MappedProviderBody) => JSON.parse(`{${answer.documentJson}}`);

before(async () => {
  const notes = new Map<string, Record<string, unknown> | string>([
    [KEY, buildProviderDocument(note)],
    [SUMMARY_KEY, buildProviderDocument({ ...note, access_key: SUMMARY_KEY }, { summaryOnly: true })],
    [ECHO_KEY, `[{"erro":"token ${TOKEN} recusado"}]`],
    [BIG_KEY, JSON.stringify({ padding: 'x'.repeat(4000) })],
    // A duplicate key: JSON.parse keeps the last one.
    [
      ODD_KEY,
      JSON.stringify(buildProviderDocument({ ...note, access_key: ODD_KEY })).replace(
        '{',
        '{"situacao":"x",',
      ),
    ],
  ]);
  simulator = await startFiscalSimulator({
    notes,
    tokens: new Set([TOKEN]),
    slowMs: 5000,
    requestsPerMinute: 1000,
  });
});
after(() => simulator.close());
beforeEach(() => {
  simulator.setMode('ok');
  logged = [];
});

/** The one failure every provider problem becomes, with no trace of the token anywhere. */
async function assertUpstreamFailure(
  attempt: Promise<unknown>,
  status: number | null,
  message = 'The fiscal provider query failed. Retry later.',
) {
  const error = await attempt.then(
    () => assert.fail('the provider query should have failed'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AppError);
  assert.equal(error.statusCode, 502);
  assert.equal(error.key, 'fiscal_upstream_error');
  assert.equal(error.message, message);
  const basic = Buffer.from(`${TOKEN}:`).toString('base64');
  for (const text of [JSON.stringify(error), String(error.stack), JSON.stringify(logged)]) {
    assert.equal(text.includes(TOKEN), false);
    assert.equal(text.includes(basic), false);
  }
  assert.equal(logged.length, 1);
  assert.equal(logged[0].details.provider_status, status);
}

test('a full note comes back mapped, numbers keeping their text', async () => {
  const answer = await fetchNote();
  const { invoice } = documentOf(answer);
  assert.equal(invoice.items[0].commercial.valor_unitario_comercial, '12.3456789012');
  assert.equal(invoice.totals.valor_frete, '10.50');
  assert.equal(answer.summary.total, '300.00');
  assert.equal(logged.length, 0);
});

test('a summary-only note comes back with no invoice and no protocol', async () => {
  assert.deepEqual(documentOf(await fetchNote({ accessKey: SUMMARY_KEY })), {
    invoice: null,
    protocol: null,
  });
});

test('a body with a duplicate key comes back as JSON.parse reads it (the last one)', async () => {
  const answer = await fetchNote({ accessKey: ODD_KEY });
  assert.equal(answer.summary.situation, 'autorizada');
  assert.equal(documentOf(answer).invoice.totals.valor_frete, '10.50');
});

test('a wrong token (provider 403) is a 502 and the token never shows', async () => {
  await assertUpstreamFailure(fetchNote({ token: `${TOKEN}-wrong` }), 403);
  assert.match(String(logged[0].details.provider_body), /permissao_negada/);
});

test('an unknown access key (provider 404) is a 502', async () => {
  await assertUpstreamFailure(fetchNote({ accessKey: '1'.repeat(44) }), 404);
  assert.match(String(logged[0].details.provider_body), /nao_encontrado/);
});

test('an access key that is not 44 digits is refused before any request', async () => {
  await assertUpstreamFailure(fetchNote({ accessKey: `${KEY.slice(0, 43)}/` }), null);
  assert.match(String(logged[0].details.reason), /44 digits/);
});

test('a provider that cannot be reached is a 502 saying so and naming FISCAL_PROVIDER_URL', async () => {
  await assertUpstreamFailure(
    fetchNote({ baseUrl: 'http://127.0.0.1:1' }),
    null,
    'The fiscal provider is unreachable (DNS, connection or TLS failure): check the server setting FISCAL_PROVIDER_URL.',
  );
  assert.match(String(logged[0].details.reason), /ECONNREFUSED/);
});

for (const [mode, status] of [
  ['server_error', 500],
  ['rate_limited', 429],
  ['redirect', 302],
  ['invalid_json', 200],
] as const) {
  test(`a provider answering ${mode} is a 502 with the status logged`, async () => {
    simulator.setMode(mode);
    await assertUpstreamFailure(fetchNote(), status);
  });
}

test('an answer slower than the timeout is a 502 without waiting for it', async () => {
  simulator.setMode('slow');
  const started = Date.now();
  await assertUpstreamFailure(fetchNote({ timeoutMs: 200 }), null);
  assert.ok(Date.now() - started < 2000);
});

test('exchanges beyond the slots wait for one, and the wait counts in the time limit', async () => {
  const slots = createSlots(1);
  simulator.setMode('slow');
  // The slow exchange holds the only slot for its 300 ms, then times out.
  const holder = fetchNote({ slots, timeoutMs: 300 });
  assert.equal(slots.busy, 1);
  const started = Date.now();
  await assertUpstreamFailure(fetchNote({ slots, timeoutMs: 100 }), null);
  assert.ok(Date.now() - started < 250, 'refused when its own limit ran out, not after the holder');
  assert.match(String(logged[0].details.reason), /no exchange free within the time limit/);
  const waiter = fetchNote({ slots, timeoutMs: 5000 });
  assert.equal(slots.waiting, 1);
  await assert.rejects(holder);
  simulator.setMode('ok');
  assert.equal((await waiter).summary.total, '300.00', 'the waiter ran once the slot was free');
  assert.equal(slots.busy, 0, 'every slot was given back, on failure and on success');
});

test('a body over 5 MiB is a 502', async () => {
  simulator.setMode('oversized');
  await assertUpstreamFailure(fetchNote(), 200);
  assert.match(String(logged[0].details.reason), /size limit/);
});

test('a body sent in chunks without a length is read whole up to the cap, and one byte more is a 502', async (t) => {
  const maxBytes = 300_000;
  const document = JSON.stringify(buildProviderDocument(note));
  let size = maxBytes;
  const server = createServer((_req, res) => {
    const body = Buffer.from(document.padEnd(size, ' '));
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let at = 0; at < body.length; at += 7000) res.write(body.subarray(at, at + 7000));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const answer = await fetchNote({ baseUrl, maxBytes });
  assert.equal(answer.summary.total, '300.00');
  size = maxBytes + 1;
  await assertUpstreamFailure(fetchNote({ baseUrl, maxBytes }), 200);
  assert.match(String(logged[0].details.reason), /size limit/);
});

test('a body that stalls or is cut after the status is a 502 with that status and what came of it logged', async (t) => {
  const begun = `{"nome_emitente":"Distribuidora Sul","eco":"${TOKEN}"`;
  let cut = false;
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
    res.write(begun);
    if (cut) setImmediate(() => req.socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const mode of ['stalled', 'cut']) {
    cut = mode === 'cut';
    logged = [];
    await assertUpstreamFailure(fetchNote({ baseUrl, timeoutMs: 300 }), 200);
    assert.equal(
      logged[0].details.provider_body,
      '{"nome_emitente":"Distribuidora Sul","eco":"***"',
      `${mode}: what came of the body is logged, masked`,
    );
    assert.match(String(logged[0].details.reason), /body not read whole/, mode);
  }
});

test('a declared content length over the cap is refused', async () => {
  await assertUpstreamFailure(fetchNote({ accessKey: BIG_KEY, maxBytes: 1000 }), 200);
});

test('a JSON body that is not an object is a 502, and a token it echoes is masked in the log', async () => {
  await assertUpstreamFailure(fetchNote({ accessKey: ECHO_KEY }), 200);
  assert.match(String(logged[0].details.provider_body), /token \*\*\* recusado/);
});

test('a document naming another key that holds the token leaves no part of it in the log', async (t) => {
  // The key is cut for the log: a cut that halves the token must not leave its first half unmasked.
  const token = 'tokSECRETabcdefghijklmnopQRSTUVWyz';
  let named = '';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...buildProviderDocument(note), chave_nfe: named }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const prefix of ['', 'x'.repeat(40), 'x'.repeat(55)]) {
    named = `${prefix}${token}${token}`;
    logged = [];
    await assert.rejects(fetchProviderAnswer({ baseUrl, token, accessKey: KEY, logger }), {
      statusCode: 502,
    });
    assert.match(String(logged[0].details.reason), /names another access key/);
    const text = JSON.stringify(logged);
    for (let at = 0; at + 6 <= token.length; at++) {
      assert.equal(text.includes(token.slice(at, at + 6)), false, `${token.slice(at, at + 6)} in ${text}`);
    }
  }
});

test('the simulator limits each token per minute and says so in the rate-limit headers', async (t) => {
  const limited = await startFiscalSimulator({
    notes: new Map([[KEY, buildProviderDocument(note)]]),
    tokens: new Set([TOKEN, 'other-token']),
    requestsPerMinute: 2,
  });
  t.after(() => limited.close());
  const call = async (token: string) => {
    const response = await request(`${limited.url}/v2/nfes_recebidas/${KEY}.json?completa=1`, {
      headers: { authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}` },
    });
    await response.body.dump();
    return response;
  };
  assert.equal((await call(TOKEN)).headers['rate-limit-remaining'], '1');
  assert.equal((await call(TOKEN)).statusCode, 200);
  const refused = await call(TOKEN);
  assert.equal(refused.statusCode, 429);
  assert.equal(refused.headers['rate-limit-limit'], '2');
  assert.equal(refused.headers['rate-limit-remaining'], '0');
  assert.ok(Number(refused.headers['rate-limit-reset']) > 0);
  assert.equal((await call('other-token')).statusCode, 200);
});

test('the simulator answers only the summary when completa=1 is not asked for', async () => {
  const response = await request(`${simulator.url}/v2/nfes_recebidas/${KEY}.json`, {
    headers: { authorization: `Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}` },
  });
  const body = (await response.body.json()) as Record<string, unknown>;
  assert.equal(response.statusCode, 200);
  assert.equal(body.chave_nfe, KEY);
  assert.equal(Object.hasOwn(body, 'requisicao_nota_fiscal'), false);
  assert.equal(Object.hasOwn(body, 'protocolo_nota_fiscal'), false);
});

test('a provider that echoes the request headers in its error body leaves no form of the token in the log or the answer', async (t) => {
  const token = 'tok/SECRET+9f8e?7d';
  const basic = Buffer.from(`${token}:`).toString('base64');
  const forms = [
    token,
    basic,
    basic.replace(/=+$/, ''),
    encodeURIComponent(token),
    encodeURIComponent(basic),
  ];
  // The echo: the headers as JSON (JSON-escaped), the credential URL-encoded and decoded, and
  // the Basic credential again across the 500th character, where the logged excerpt is cut.
  const echo = createServer((req, res) => {
    const authorization = String(req.headers.authorization);
    const decoded = Buffer.from(authorization.slice(6), 'base64').toString();
    const body = JSON.stringify({
      codigo: 'nao_autorizado',
      headers: req.headers,
      encoded: encodeURIComponent(authorization),
      decoded,
      decoded_encoded: encodeURIComponent(decoded),
      escaped: authorization.replaceAll('/', '\\/'),
    });
    const padded = `nao_autorizado ${' '.repeat(480 - 15)}${authorization} ${body}`;
    res.writeHead(401, { 'content-type': 'application/json' }).end(padded);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  t.after(() => echo.close());
  const baseUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  const error = await fetchProviderAnswer({ baseUrl, token, accessKey: KEY, logger }).then(
    () => assert.fail('a 401 should fail'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AppError);
  assert.equal(error.statusCode, 502);
  assert.equal(logged.length, 1);
  const body = String(logged[0].details.provider_body);
  assert.match(body, /^nao_autorizado {466}Basic \*\*\* /, 'the echoed body is logged, masked');
  assert.equal(body.length, 500);
  for (const text of [JSON.stringify(error), String(error.stack), JSON.stringify(logged)]) {
    for (const form of forms) assert.equal(text.includes(form), false, `${form} in ${text}`);
    // A form cut at the excerpt's end leaves no more than a few characters of it.
    assert.equal(text.includes(basic.slice(0, 8)), false);
  }
});

test('a body that is not valid JSON leaves no part of a token it echoes in the log', async (t) => {
  const token = 'tokSECRETabcdefghijklmnopQRSTUVWyz';
  // JSON.parse's message quotes ten characters of the body around the fault: a cut of the token
  // that masking the whole token cannot find.
  const bodies = [
    `${token} recusado`,
    `{"codigo":"nao_autorizado","token": ${token}}`,
    `{"codigo":"nao_autorizado","token": "${token}" "x"}`,
  ];
  let body = '';
  const echo = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise((resolve) => echo.close(resolve)));
  const baseUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  for (const sent of bodies) {
    body = sent;
    logged = [];
    await assert.rejects(fetchProviderAnswer({ baseUrl, token, accessKey: KEY, logger }), {
      statusCode: 502,
    });
    assert.equal(logged.length, 1);
    assert.match(String(logged[0].details.reason), /not valid JSON/);
    const text = JSON.stringify(logged);
    for (let at = 0; at + 6 <= token.length; at++) {
      assert.equal(text.includes(token.slice(at, at + 6)), false, `${token.slice(at, at + 6)} in ${text}`);
    }
  }
});

test('the simulator answers a request target it cannot parse, or a malformed escape in the key, with a 404 instead of crashing', async () => {
  const { port } = new URL(simulator.url);
  const statusOf = (target: string, authorization = '') =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\n${authorization}Connection: close\r\n\r\n`);
      });
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk;
      });
      socket.on('close', () => resolve(answer.split('\r\n')[0]));
      socket.on('error', reject);
    });
  const basic = `Authorization: Basic ${Buffer.from(`${TOKEN}:`).toString('base64')}\r\n`;
  assert.equal(await statusOf('http://['), 'HTTP/1.1 404 Not Found');
  assert.equal(await statusOf('/v2/nfes_recebidas/%E0%A4%A.json', basic), 'HTTP/1.1 404 Not Found');
  assert.equal((await fetchNote()).summary.total, '300.00', 'the simulator still serves');
});
