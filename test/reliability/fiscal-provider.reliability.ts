// The fiscal provider slow, failing, oversized, redirecting, dribbling or sending the largest
// body it may: each NF-e detail ends within FISCAL_TIMEOUT_MS as the fixed 502 (or a 200), and
// the server's event loop is never held (its own event-loop delay from /metrics, and /healthz
// latency measured from outside while the provider answers).
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { type SimulatorMode, startFiscalSimulator } from '../../src/fiscal-simulator/fiscal-simulator.ts';
import { signSession } from '../../src/modules/auth/session-token.ts';
import { providerNotes, reliabilityWorld } from '../security/world.ts';
import { accessKey } from '../support/nfe-world.ts';
import { bearer, freshDatabase, http, importFile, SECRETS, startInstance, tempDir } from './harness.ts';
import { missingServices, SHARED_POSTGRES } from './services.ts';

const SKIP = await missingServices();
const TIMEOUT_MS = 2000;

/** A provider that answers 200 at once and then sends its body slowly, or the largest valid body. */
async function trickleProvider(t: { after(fn: () => unknown): void }) {
  let mode: 'dribble' | 'real-largest' | 'padded-5mib' | 'declared-huge' = 'dribble';
  const item = (n: number) => ({
    numero_item: n,
    codigo_produto: `P${n}`,
    descricao: 'Farinha de trigo tipo 1',
    codigo_ncm: '11010010',
    cfop: '5102',
    quantidade_comercial: 10.5,
    valor_unitario_comercial: 4.1234567891,
    valor_bruto: 43.3,
    icms_aliquota: 18.0,
    pis_situacao_tributaria: '01',
  });
  const document = (items: number) =>
    JSON.stringify({
      ...providerNotes().get(accessKey(1)),
      nfe_completa: true,
      requisicao_nota_fiscal: {
        natureza_operacao: 'Compra',
        itens: Array.from({ length: items }, (_, i) => item(i + 1)),
      },
    });
  // The NF-e layout allows 990 items; a 5 MiB document is only possible with padding.
  const bodies = { 'real-largest': document(990), 'padded-5mib': document(20_000) };
  const server = createServer((_req, res: ServerResponse) => {
    res.on('error', () => {});
    if (mode === 'declared-huge')
      return res.writeHead(200, { 'content-length': String(100 * 1024 * 1024) }).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    if (mode === 'real-largest' || mode === 'padded-5mib') return res.end(bodies[mode]);
    const timer = setInterval(() => res.write('x'.repeat(1024)), 100);
    res.write('{"padding":"');
    res.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    setMode: (m: typeof mode) => {
      mode = m;
    },
    bytes: (m: keyof typeof bodies) => bodies[m].length,
  };
}

test('the fiscal provider misbehaving', { skip: SKIP, timeout: 180_000 }, async (t) => {
  const databaseUrl = await freshDatabase(t, SHARED_POSTGRES);
  const { ids, data } = reliabilityWorld({ products: 2, keys: 0 });
  await importFile(t, databaseUrl, data);
  const simulator = await startFiscalSimulator({
    notes: providerNotes() as never,
    tokens: new Set([ids.a.fiscalToken]),
    slowMs: 30_000,
    requestsPerMinute: 100_000,
  });
  t.after(() => simulator.close());
  const trickle = await trickleProvider(t);
  const env = {
    DATABASE_URL: databaseUrl,
    RATE_LIMIT_PER_MINUTE: '1000000',
    FISCAL_TIMEOUT_MS: String(TIMEOUT_MS),
    DATA_DIR: tempDir(t),
  };
  const [viaSimulator, viaTrickle] = await Promise.all([
    startInstance(t, { ...env, FISCAL_PROVIDER_URL: simulator.url }),
    startInstance(t, { ...env, FISCAL_PROVIDER_URL: trickle.url }),
  ]);
  const auth = bearer(signSession(ids.a.restaurant, 3600, SECRETS.RESTAURANT_SESSION_SECRET));
  const eventLoopMaxMs = async (url: string) => {
    const metrics = (await http(`${url}/metrics`)).text;
    return Number(/^nodejs_eventloop_lag_max_seconds (\S+)/m.exec(metrics)?.[1] ?? Number.NaN) * 1000;
  };

  /** Eight detail requests at once while /healthz is polled every 25 ms from outside. */
  const underFault = async (url: string) => {
    await eventLoopMaxMs(url); // resets the server's delay histogram
    let polling = true;
    const health: number[] = [];
    const poller = (async () => {
      while (polling) {
        health.push((await http(`${url}/healthz`, {}, 5000)).ms);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const details = await Promise.all(
      Array.from({ length: 8 }, () =>
        http(`${url}/v1/nfe-received/info/${ids.a.nfe}`, { headers: auth }, 20_000),
      ),
    );
    polling = false;
    await poller;
    return { details, healthMax: Math.max(...health), loopMax: await eventLoopMaxMs(url) };
  };

  const report: string[] = [];
  const cases: [string, string, () => void][] = [
    ...(
      ['slow', 'server_error', 'redirect', 'oversized', 'invalid_json', 'rate_limited'] as SimulatorMode[]
    ).map((mode): [string, string, () => void] => [mode, viaSimulator.url, () => simulator.setMode(mode)]),
    ['dribbling body', viaTrickle.url, () => trickle.setMode('dribble')],
    ['declares 100 MiB', viaTrickle.url, () => trickle.setMode('declared-huge')],
  ];
  for (const [name, url, arrange] of cases) {
    await t.test(
      `provider ${name}: 502 fiscal_upstream_error within the timeout, event loop free`,
      async () => {
        arrange();
        const { details, healthMax, loopMax } = await underFault(url);
        const slowest = Math.max(...details.map((d) => d.ms));
        report.push(
          `${name}: slowest ${Math.round(slowest)} ms, /healthz max ${Math.round(healthMax)} ms, event-loop delay max ${Math.round(loopMax)} ms`,
        );
        for (const d of details) {
          assert.equal(d.status, 502, d.text);
          assert.deepEqual(d.json, {
            statusCode: 502,
            message: 'The fiscal provider query failed. Retry later.',
            key: 'fiscal_upstream_error',
          });
        }
        assert.ok(slowest < TIMEOUT_MS + 1500, `a detail took ${slowest} ms`);
        assert.ok(healthMax < 500, `/healthz took ${healthMax} ms`);
      },
    );
  }

  await t.test(
    `the largest real NF-e (990 items, ${(trickle.bytes('real-largest') / 1024).toFixed(0)} KiB), eight at once, is served without holding the loop`,
    async () => {
      trickle.setMode('real-largest');
      const { details, healthMax, loopMax } = await underFault(viaTrickle.url);
      report.push(
        `990-item document x8: slowest ${Math.round(Math.max(...details.map((d) => d.ms)))} ms, /healthz max ${Math.round(healthMax)} ms, event-loop delay max ${Math.round(loopMax)} ms`,
      );
      for (const d of details) assert.equal(d.status, 200, d.text.slice(0, 300));
      assert.equal(details[0].json.invoice.items.length, 990);
      assert.ok(healthMax < 1000, `/healthz took ${healthMax} ms`);
    },
  );

  await t.test(
    `a padded document just under 5 MiB is served, and what it costs the loop is measured`,
    async () => {
      trickle.setMode('padded-5mib');
      await eventLoopMaxMs(viaTrickle.url);
      const detail = await http(
        `${viaTrickle.url}/v1/nfe-received/info/${ids.a.nfe}`,
        { headers: auth },
        20_000,
      );
      const loopMax = await eventLoopMaxMs(viaTrickle.url);
      report.push(
        `${(trickle.bytes('padded-5mib') / 1048576).toFixed(2)} MiB document x1: ${Math.round(detail.ms)} ms, event-loop delay max ${Math.round(loopMax)} ms`,
      );
      assert.equal(detail.status, 200, detail.text.slice(0, 300));
      assert.ok(loopMax < 2000, `the loop was held ${loopMax} ms`);
    },
  );

  await t.test('both instances are still up', async () => {
    t.diagnostic(report.join('; '));
    for (const instance of [viaSimulator, viaTrickle]) assert.equal(instance.child.exitCode, null);
  });
});
