import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { insertRestaurant } from '../../support/financial-world.ts';
import { bearerFor } from '../../support/tokens.ts';

const PERIOD = 'start_date=2026-01-01&end_date=2026-01-31';

test('the cash-flow query is validated', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  await insertRestaurant(ctx.db, 1, 100);
  const { authorization } = await bearerFor(ctx.db, [1], ['financial:read']);
  const get = (query: string) =>
    app.inject({ method: 'GET', url: `/v1/financial/cash-flows?${query}`, headers: { authorization } });

  async function rejects(query: string, field: string) {
    const res = await get(query);
    assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
    assert.equal(res.json().key, 'invalid_query');
    const fields = res.json().errors.map((e: { field: string }) => e.field);
    assert.ok(fields.includes(field), `${query}: expected an error on ${field}, got ${fields}`);
    for (const e of res.json().errors) assert.equal(typeof e.message, 'string');
  }
  async function accepts(query: string) {
    const res = await get(query);
    assert.equal(res.statusCode, 200, `${query}: ${res.body}`);
    return res.json();
  }

  await t.test('start_date and end_date are required', async () => {
    await rejects('end_date=2026-01-31', 'start_date');
    await rejects('start_date=2026-01-01', 'end_date');
    await rejects('', 'start_date');
  });

  await t.test('dates must be YYYY-MM-DD days that exist in the calendar', async () => {
    for (const bad of [
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-1-05',
      '20260105',
      '2026-01-05T00:00:00Z',
      '',
      'today',
      '0000-01-01',
    ]) {
      await rejects(`start_date=${encodeURIComponent(bad)}&end_date=2026-01-31`, 'start_date');
    }
    await rejects('start_date=2026-01-01&end_date=2026-04-31', 'end_date');
    await accepts('start_date=2024-02-29&end_date=2024-03-01');
  });

  await t.test('start_date after end_date is rejected; the same day is a valid period', async () => {
    await rejects('start_date=2026-02-02&end_date=2026-02-01', 'end_date');
    const body = await accepts('start_date=2026-02-01&end_date=2026-02-01');
    assert.equal(body.start_date, '2026-02-01');
  });

  await t.test('the period is at most 92 calendar days, both ends included', async () => {
    await accepts('start_date=2026-01-01&end_date=2026-04-02');
    await rejects('start_date=2026-01-01&end_date=2026-04-03', 'end_date');
    await rejects('start_date=2025-01-01&end_date=2026-01-01', 'end_date');
  });

  await t.test('the 92-day limit holds for years 0001 to 0099 too (not read as 1901 to 1999)', async () => {
    // Date.UTC reads a year below 100 as 1900 + year: 0099-12-01 was day 1999-12-01, so a period
    // of 1,900 years passed as 31 days.
    await rejects('start_date=0099-12-01&end_date=1999-12-31', 'end_date');
    await rejects('start_date=0001-01-01&end_date=1901-01-01', 'end_date');
    await accepts('start_date=0099-12-01&end_date=0100-01-31');
  });

  await t.test('date_type is due_date (the default) or competence_date', async () => {
    assert.equal((await accepts(PERIOD)).date_type, 'due_date');
    assert.equal((await accepts(`${PERIOD}&date_type=competence_date`)).date_type, 'competence_date');
    for (const bad of ['', 'DUE_DATE', 'payment_date', 'competence'])
      await rejects(`${PERIOD}&date_type=${bad}`, 'date_type');
  });

  await t.test('offset is an integer >= 0', async () => {
    assert.equal((await accepts(PERIOD)).offset, 0);
    assert.equal((await accepts(`${PERIOD}&offset=200`)).offset, 200);
    for (const bad of [
      '-1',
      '1.5',
      '1.0',
      'abc',
      '',
      '01',
      '1e3',
      '0x10',
      '+5',
      '2147483648',
      '99999999999',
    ]) {
      await rejects(`${PERIOD}&offset=${encodeURIComponent(bad)}`, 'offset');
    }
  });

  await t.test('paid and is_earning accept only true or false', async () => {
    for (const name of ['paid', 'is_earning']) {
      await accepts(`${PERIOD}&${name}=true`);
      await accepts(`${PERIOD}&${name}=false`);
      for (const bad of ['1', '0', 'yes', 'no', '', 'TRUE', 'True', 'null'])
        await rejects(`${PERIOD}&${name}=${bad}`, name);
    }
  });

  await t.test('id filters are positive integers up to 2147483647', async () => {
    for (const name of ['provider_id', 'bank_account_id', 'payment_method_id', 'category_subcategory_id']) {
      assert.equal((await accepts(`${PERIOD}&${name}=2147483647`)).total, 0);
      for (const bad of ['0', '-1', '1.0', '1.5', 'abc', '', '1e3', '0x10', '+5', '007', '2147483648']) {
        await rejects(`${PERIOD}&${name}=${encodeURIComponent(bad)}`, name);
      }
    }
  });

  await t.test('unknown parameters are rejected, including a page size (fixed at 100)', async () => {
    await rejects(`${PERIOD}&limit=50`, 'limit');
    await rejects(`${PERIOD}&page=2`, 'page');
    await rejects(`${PERIOD}&startDate=2026-01-01`, 'startDate');
  });

  await t.test('a repeated parameter is rejected', async () => {
    await rejects(`${PERIOD}&start_date=2026-01-02`, 'start_date');
    await rejects(`${PERIOD}&paid=true&paid=false`, 'paid');
  });

  await t.test('a malformed restaurant_id is rejected', async () => {
    await rejects(`${PERIOD}&restaurant_id=abc`, 'restaurant_id');
  });

  await t.test('every invalid field is reported at once', async () => {
    const res = await get('start_date=2026-02-30&end_date=x&paid=1&offset=-1&foo=bar');
    const fields = res
      .json()
      .errors.map((e: { field: string }) => e.field)
      .sort();
    assert.deepEqual(fields, ['end_date', 'foo', 'offset', 'paid', 'start_date']);
  });
});
