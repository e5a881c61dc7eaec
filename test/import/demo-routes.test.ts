// The demo as an integrator first meets it: the calls the README shows answer with data.
import assert from 'node:assert/strict';
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
