// The bench's verdicts: which row meets which of issue 12's targets. The report's "18 of 18" is
// only as good as these checks and the targets each scenario carries.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Row } from '../../bench/measure-scenario.ts';
import type { Scenario } from '../../bench/scenario.ts';
import { selectScenarios } from '../../bench/scenarios.ts';
import { checks, RSS_TARGET_MB } from '../../bench/targets.ts';

const options = {
  pglite: false,
  quick: false,
  all: false,
  seconds: 5,
  warmup: 2,
  latencySeconds: 3,
  connections: 32,
  cpuProf: false,
  output: '',
};

function row(scenario: Partial<Scenario>, values: Partial<Row> = {}): Row {
  return {
    scenario: { id: 'x', label: 'x', read: true, ...scenario } as Scenario,
    connections: 32,
    load: 0,
    server: { rps: 1000, p50: 1, p99: 2, requests: 5000, failures: 0 },
    latency: { p50: 1, p99: 2, samples: 3000, failures: 0 },
    db: { ms: 0.3, queries: 1 },
    cpuMsPerRequest: 1,
    rssPeak: 200,
    steal: {},
    ...values,
  };
}

const verdicts = (r: Row) => Object.fromEntries(checks(r).map((c) => [c.target, c.pass]));

test('the ratio to node:http passes at the target and fails just under it', () => {
  const at = row({ ratioTarget: 0.5 }, { ceiling: { rps: 2000, p50: 1, p99: 1, requests: 1, failures: 0 } });
  assert.equal(verdicts(at)['≥ 50% of node:http'], true);
  const under = row(
    { ratioTarget: 0.5 },
    { ceiling: { rps: 2001, p50: 1, p99: 1, requests: 1, failures: 0 } },
  );
  assert.equal(verdicts(under)['≥ 50% of node:http'], false);
});

test('the one-client p99 must be under 50 ms: 50 itself fails', () => {
  const latency = (p99: number) => ({ p50: 1, p99, samples: 100, failures: 0 });
  assert.equal(verdicts(row({ p99Target: 50 }, { latency: latency(49.99) }))['p99 < 50 ms'], true);
  assert.equal(verdicts(row({ p99Target: 50 }, { latency: latency(50) }))['p99 < 50 ms'], false);
});

test("the NF-e detail is held to what it adds to the provider's own p50", () => {
  const detail = (p50: number, provider: number) =>
    row(
      { providerAddsAtMost: 10 },
      {
        latency: { p50, p99: 90, samples: 100, failures: 0 },
        provider: { p50: provider, p99: 80, samples: 100, failures: 0 },
      },
    );
  assert.equal(verdicts(detail(19.9, 10))['adds < 10 ms to the provider'], true);
  assert.equal(verdicts(detail(20, 10))['adds < 10 ms to the provider'], false);
  assert.equal(verdicts(detail(19.9, 10))['p99 < 50 ms'], undefined, 'no p99 target for the detail');
});

test('a row beside a background is held to its p99 alone times the bound, measured in the same run', () => {
  const beside = (p99: number) =>
    row(
      { p99BesideAtMost: 1.5 },
      {
        latency: { p50: 1, p99, samples: 100, failures: 0 },
        alone: { p50: 1, p99: 4, samples: 100, failures: 0 },
      },
    );
  const target = 'p99 ≤ 1.5× its p99 alone (4.00 ms)';
  assert.equal(verdicts(beside(6))[target], true);
  assert.equal(verdicts(beside(6.01))[target], false);
});

test('every row is held to RSS, and a failed request fails the row', () => {
  assert.equal(verdicts(row({}, { rssPeak: RSS_TARGET_MB - 0.1 }))['RSS < 300 MB'], true);
  assert.equal(verdicts(row({}, { rssPeak: RSS_TARGET_MB }))['RSS < 300 MB'], false);
  const failing = row({}, { latency: { p50: 1, p99: 2, samples: 10, failures: 2 } });
  assert.deepEqual(
    checks(failing).filter((c) => !c.pass),
    [{ target: '2 non-2xx or failed requests', pass: false }],
  );
});

test("each scenario carries issue 12's targets", () => {
  const scenarios = selectScenarios(options);
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const targets = (id: string) => {
    const s = byId.get(id);
    assert.ok(s, `scenario ${id}`);
    return { ratio: s.ratioTarget, p99: s.p99Target, adds: s.providerAddsAtMost };
  };
  for (const id of [
    'products',
    'menu-2000-in_store',
    'menu-2000-in_store-available',
    'menu-2000-delivery',
    'menu-2000-delivery-available',
  ])
    assert.deepEqual(targets(id), { ratio: 0.5, p99: 50, adds: undefined }, id);
  for (const id of ['product', 'nfe-list', 'cash-flows-21-first', 'cash-flows-21-last'])
    assert.deepEqual(targets(id), { ratio: 0.25, p99: 50, adds: undefined }, id);
  for (const id of ['token-exchange', 'token-refresh', 'product-put', 'products-bulk', 'availability'])
    assert.deepEqual(targets(id), { ratio: undefined, p99: 50, adds: undefined }, id);
  assert.deepEqual(targets('nfe-detail'), { ratio: undefined, p99: undefined, adds: 60 });
  assert.deepEqual(targets('nfe-detail-45k'), { ratio: undefined, p99: undefined, adds: 5 });
  assert.equal(byId.get('menu-beside-nfe-detail')?.p99BesideAtMost, 1.5);
  const scaled = scenarios.filter((s) => s.scale);
  assert.ok(scaled.length >= 8, 'menu and cash-flow rows at 10x less and 10x more data');
  for (const s of scaled)
    assert.deepEqual(
      [s.ratioTarget, s.p99Target, s.providerAddsAtMost],
      [undefined, undefined, undefined],
      s.id,
    );
  assert.equal(scenarios.filter((s) => !s.scale).length, 18, 'the 18 nominal rows');
});
