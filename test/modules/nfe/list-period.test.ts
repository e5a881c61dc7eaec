import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { insertNote, insertRestaurant, NFE_SCOPE } from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';

test('the period and the parameters of GET /v1/nfe-received', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const restaurant = await insertRestaurant(ctx.db);
  const at = (issued_at: string) => insertNote(ctx.db, restaurant, { issued_at });
  const before = await at('2026-01-04T23:59:59.999Z');
  const startSecond = await at('2026-01-05T00:00:00.000Z');
  const endSecond = await at('2026-01-20T10:00:00.000Z');
  const endSecondLate = await at('2026-01-20T10:00:00.999Z');
  const after = await at('2026-01-20T10:00:01.000Z');
  const { authorization } = await bearerFor(ctx.db, [restaurant], [NFE_SCOPE]);

  const list = (query: Record<string, string | string[]>) =>
    app.inject({ method: 'GET', url: '/v1/nfe-received', query, headers: { authorization } });
  const ids = async (start_date: string, end_date: string) => {
    const res = await list({ start_date, end_date });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().map((note: { id: number }) => note.id);
  };
  const rejected = async (query: Record<string, string | string[]>, field: string) => {
    const res = await list(query);
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().key, 'invalid_query');
    assert.ok(
      res.json().errors.some((e: { field: string }) => e.field === field),
      `expected a message for ${field}: ${res.body}`,
    );
    assert.ok(res.headers['x-error-id']);
    return res.json();
  };
  const JANUARY = { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-31T00:00:00Z' };

  await t.test('both ends are included to the second, fractions of the end second too', async () => {
    assert.deepEqual(await ids('2026-01-05T00:00:00Z', '2026-01-20T10:00:00Z'), [
      startSecond,
      endSecond,
      endSecondLate,
    ]);
    assert.deepEqual(await ids('2026-01-05T00:00:01Z', '2026-01-20T09:59:59Z'), []);
    assert.deepEqual(await ids('2026-01-20T10:00:00Z', '2026-01-20T10:00:00Z'), [endSecond, endSecondLate]);
    assert.deepEqual(await ids('2026-01-20T10:00:01Z', '2026-01-20T10:00:01Z'), [after]);
    assert.deepEqual(await ids('2026-01-04T23:59:59Z', '2026-01-04T23:59:59Z'), [before]);
  });

  await t.test('a date-time without offset is UTC, and an explicit offset is honoured', async () => {
    const expected = [startSecond, endSecond, endSecondLate];
    assert.deepEqual(await ids('2026-01-05T00:00:00', '2026-01-20T10:00:00'), expected);
    assert.deepEqual(await ids('2026-01-04T21:00:00-03:00', '2026-01-20T07:00:00-03:00'), expected);
    assert.deepEqual(await ids('2026-01-05T05:30:00+05:30', '2026-01-20T10:00:00.000Z'), expected);
  });

  await t.test('a period of exactly 92 days is accepted, one second more is not', async () => {
    assert.deepEqual(await ids('2025-10-20T10:00:01Z', '2026-01-20T10:00:01Z'), [
      before,
      startSecond,
      endSecond,
      endSecondLate,
      after,
    ]);
    const body = await rejected(
      { start_date: '2025-10-20T10:00:00Z', end_date: '2026-01-20T10:00:01Z' },
      'end_date',
    );
    assert.match(body.errors[0].message, /92 days/);
  });

  await t.test('an end before the start is rejected', async () => {
    await rejected({ start_date: '2026-01-20T10:00:01Z', end_date: '2026-01-20T10:00:00Z' }, 'end_date');
  });

  await t.test('missing dates are rejected, each named', async () => {
    await rejected({ end_date: JANUARY.end_date }, 'start_date');
    await rejected({ start_date: JANUARY.start_date }, 'end_date');
    const both = await list({});
    assert.deepEqual(
      both
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
      ['end_date', 'start_date'],
    );
  });

  for (const value of [
    '2026-01-10',
    '2026-01-10T13:00',
    '2026-01-10T13:00Z',
    '2026-01-10 13:00:00',
    '2026-01-10T13:00:00-0300',
    '2026-01-10T13:00:00+03',
    '10/01/2026 13:00:00',
    '1768050000',
    '',
  ]) {
    await t.test(`start_date "${value}" is rejected`, async () => {
      await rejected({ ...JANUARY, start_date: value }, 'start_date');
    });
  }

  for (const value of [
    '2026-02-29T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-01-32T00:00:00Z',
    '2026-01-10T24:00:00Z',
    '2026-01-10T13:60:00Z',
    '2026-01-10T13:00:60Z',
    '2026-01-10T13:00:00+24:00',
    '0000-01-01T00:00:00Z',
    '0999-12-31T23:59:59Z',
    '9999-12-31T23:59:59-03:00',
  ]) {
    await t.test(`end_date "${value}" is not a real instant and is rejected`, async () => {
      await rejected({ ...JANUARY, end_date: value }, 'end_date');
    });
  }

  await t.test('the first and last instants of four-digit years are accepted', async () => {
    const first = await list({ start_date: '1000-01-01T00:00:00Z', end_date: '1000-01-01T00:00:00Z' });
    assert.equal(first.statusCode, 200, first.body);
    const last = await list({ start_date: '9999-12-31T23:59:59Z', end_date: '9999-12-31T23:59:59Z' });
    assert.equal(last.statusCode, 200, last.body);
  });

  await t.test('a leap day is a real date', async () => {
    const res = await list({ start_date: '2028-02-29T00:00:00Z', end_date: '2028-02-29T23:59:59Z' });
    assert.equal(res.statusCode, 200);
  });

  await t.test('a repeated date is rejected', async () => {
    await rejected(
      { ...JANUARY, start_date: ['2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'] },
      'start_date',
    );
  });

  for (const value of ['yes', '1', '0', 'TRUE', 'False', '']) {
    await t.test(`pendente "${value}" is rejected`, async () => {
      await rejected({ ...JANUARY, pendente: value }, 'pendente');
    });
  }

  for (const value of ['0', '-1', '1.5', '1e3', 'abc', '01', ' 1', '2147483648', '99999999999', '']) {
    await t.test(`brand_id "${value}" is rejected`, async () => {
      await rejected({ ...JANUARY, brand_id: value }, 'brand_id');
    });
  }

  await t.test('a repeated brand_id is rejected', async () => {
    await rejected({ ...JANUARY, brand_id: ['1', '1'] }, 'brand_id');
  });

  await t.test('an unknown parameter is rejected rather than ignored', async () => {
    const body = await rejected({ ...JANUARY, pendentes: 'true' }, 'pendentes');
    assert.equal(body.errors[0].message, 'is not an accepted field');
  });

  await t.test('every invalid parameter is reported at once', async () => {
    const fieldsOf = async (query: Record<string, string>) =>
      (await list(query))
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort();
    const calendar = { start_date: '2026-02-30T00:00:00Z', end_date: '2026-13-01T00:00:00Z' };
    assert.deepEqual(await fieldsOf(calendar), ['end_date', 'start_date']);
    const shape = { ...JANUARY, brand_id: '2147483648', pendente: 'yes' };
    assert.deepEqual(await fieldsOf(shape), ['brand_id', 'pendente']);
  });
});
