// The demo as an integrator first meets it: the calls the README shows answer with data, whatever
// the day it was loaded.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadDemo } from '../../src/demo/demo.ts';
import { demoPeriod } from '../../src/demo/period.ts';
import { buildTestApp } from '../support/app.ts';
import { sessionFor } from '../support/tokens.ts';

const TODAY = new Date('2026-05-20T12:00:00Z');

test('the first NF-e list of the demo restaurant (no pendente, no brand_id) shows confirmed notes', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  await loadDemo(ctx.db, { fiscalTokenKey: ctx.secrets.fiscalTokenKey, today: TODAY });
  const { months } = demoPeriod(TODAY);
  const auth = sessionFor(1, ctx.secrets.sessionSecret);
  const list = async (query: string) => {
    const res = await app.inject({ url: `/v1/nfe-received?${query}`, headers: auth });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { brand_id: number | null; manifestation: { type: string } }[];
  };
  // The demo period is four months: two ranges of at most 92 days cover it.
  const period = (from: string, to: string) =>
    `start_date=${from}-01T00:00:00-03:00&end_date=${to}-28T23:59:59-03:00`;
  const first = [
    ...(await list(period(months[0], months[1]))),
    ...(await list(period(months[2], months[3]))),
  ];
  assert.ok(first.length >= 3, `${first.length} notes`);
  assert.ok(first.every((n) => n.manifestation.type === 'confirmacao' && n.brand_id !== 11));
  const second = [
    ...(await list(`${period(months[0], months[1])}&brand_id=11`)),
    ...(await list(`${period(months[2], months[3])}&brand_id=11`)),
  ];
  assert.ok(second.length >= 1, 'the second brand has confirmed notes too');
});

test("the README's NF-e and cash-flow examples find demo data whatever day the demo was loaded", async (t) => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  assert.doesNotMatch(readme, /\b\d{4}-\d{2}-\d{2}\b/, 'no calendar date: it would go stale');
  // The period the examples ask for: from `days` days before now to now, in UTC (the curl's FROM,
  // the client's ago(days) and day(days)).
  const days = Number(/FROM=\$\(node -p 'new Date\(Date\.now\(\) - (\d+) \* 864e5\)/.exec(readme)?.[1]);
  assert.ok(days > 0 && days <= 92, `the curl's period: ${days} days`);
  const clientDays = [...readme.matchAll(/\b(?:ago|day)\((\d+)\)/g)].map(([, n]) => Number(n));
  assert.deepEqual(
    [...new Set(clientDays)].sort((a, b) => a - b),
    [0, days],
    "the client's period is the curl's",
  );

  for (const loaded of ['2026-03-01T00:30:00Z', '2024-02-29T12:00:00Z', '2027-05-31T23:30:00Z']) {
    const { app, ctx } = await buildTestApp(t);
    const now = new Date(loaded);
    await loadDemo(ctx.db, { fiscalTokenKey: ctx.secrets.fiscalTokenKey, today: now });
    const auth = sessionFor(1, ctx.secrets.sessionSecret);
    const since = (n: number) => new Date(now.getTime() - n * 864e5).toISOString().slice(0, 19);
    const notes = await app.inject({
      url: `/v1/nfe-received?start_date=${since(days)}&end_date=${since(0)}&brand_id=10`,
      headers: auth,
    });
    assert.equal(notes.statusCode, 200, notes.body);
    assert.ok(notes.json().length >= 3, `${loaded}: ${notes.json().length} notes`);
    const flows = await app.inject({
      url: `/v1/financial/cash-flows?start_date=${since(days).slice(0, 10)}&end_date=${since(0).slice(0, 10)}`,
      headers: auth,
    });
    assert.equal(flows.statusCode, 200, flows.body);
    assert.ok(flows.json().total > 0, `${loaded}: cash-flow entries`);
  }
});
