import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { test } from 'node:test';
import pg from 'pg';
import { timestamptzParser } from '../../src/db/timestamptz.ts';
import { testDatabaseUrl } from '../support/database.ts';

// pg-types' own parser, postgres-date, loaded where pg-types loads it from (database.ts, imported
// by the support module, has already replaced it in pg.types).
const fromPgTypes = createRequire(createRequire(import.meta.url).resolve('pg-types'));
const general = fromPgTypes('postgres-date') as (text: string) => Date;
const parse = timestamptzParser(general);

/** The same instant, or both invalid, or both not a Date (infinity parses to a number). */
function same(text: string): void {
  const ours: unknown = parse(text);
  const theirs: unknown = general(text);
  if (ours instanceof Date && theirs instanceof Date) {
    assert.ok(
      Object.is(ours.getTime(), theirs.getTime()),
      `${text}: ${ours.getTime()} vs ${theirs.getTime()}`,
    );
  } else assert.deepEqual(ours, theirs, text);
}

test('every fraction of 1 to 6 digits gives postgres-date’s milliseconds', () => {
  for (let digits = 1; digits <= 6; digits++) {
    for (let value = 0; value < 10 ** digits; value++) {
      const text = `2026-11-22 10:11:12.${String(value).padStart(digits, '0')}-03`;
      const ours = parse(text).getTime();
      const theirs = general(text).getTime();
      if (ours !== theirs) assert.fail(`${text}: ${ours} vs ${theirs}`);
    }
  }
});

test('offsets of hours, minutes and seconds, both signs', () => {
  for (const sign of '+-') {
    for (let hours = 0; hours <= 15; hours++) {
      const hh = String(hours).padStart(2, '0');
      for (const rest of ['', ':00', ':15', ':30', ':45', ':06:28', ':59:59'])
        same(`2024-02-29 23:59:59.999${sign}${hh}${rest}`);
      same(`1900-01-01 00:00:00${sign}${hh}`);
    }
  }
});

test('dates across years 100 to 9999 (seeded)', () => {
  let seed = 12345;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  for (let i = 0; i < 20_000; i++) {
    const date = `${pad(100 + next(9900), 4)}-${pad(1 + next(12))}-${pad(1 + next(28))}`;
    const time = `${pad(next(24))}:${pad(next(60))}:${pad(next(60))}`;
    const fraction = next(2) ? `.${pad(next(1000), 3)}` : '';
    same(`${date} ${time}${fraction}${next(2) ? '+' : '-'}${pad(next(15))}${next(3) ? '' : ':30'}`);
  }
});

test('the common shape never reaches the general parser', () => {
  const alone = timestamptzParser(() => {
    throw new Error('the general parser was called');
  });
  for (const text of [
    '2026-11-22 10:11:12.345-03',
    '1900-01-01 00:00:00-03:06:28',
    '0150-03-01 12:00:00+00',
  ]) {
    assert.equal(alone(text).getTime(), general(text).getTime(), text);
  }
});

test('every other text goes to the general parser: same result', () => {
  for (const text of [
    'infinity',
    '-infinity',
    '0044-03-15 12:00:00+00 BC',
    '0044-03-15 12:00:00.5-03 BC',
    '0150-03-01 12:00:00+00 BC',
    '0150-03-01 12:00:00+03:30:15 BC',
    '10000-01-01 00:00:00+00',
    '0050-06-01 00:00:00+00',
    '0099-12-31 23:59:59.999+00',
    '2026-11-22 10:11:12.+00',
    '2026-11-22 10:11:12.1234567+00',
    '2026-11-22T10:11:12Z',
    '2026-11-22 10:11:12Z',
    '2026-11-22 10:11:12',
    '2026-11-22 10:11:12.5',
    '2026-11-22 10:11:12+0',
    '2026-11-22 10:11:12+03:3',
    '2026-11-22 10:11:12+03:30:1',
    '2026-11-22 10:11:12+03:30:15:00',
    '2026-11-22 10:11:12+03 ',
    '2026-11-22 10:11:12+0a',
    '2026-11-22 10:1a:12+00',
    '2026/11/22 10:11:12+00',
    '2026-11-22',
    '',
  ]) {
    same(text);
  }
});

test('on PostgreSQL, what the server writes in several time zones reads as the same instants', {
  skip: testDatabaseUrl ? false : 'PostgreSQL only (DATABASE_URL)',
}, async () => {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    for (const zone of ['UTC', 'America/Sao_Paulo', 'Asia/Kolkata', 'America/St_Johns', 'Pacific/Chatham']) {
      await client.query(`set time zone '${zone}'`);
      const { rows } = await client.query<{ text: string; millis: string }>(
        `select v::text as text, (extract(epoch from v) * 1000)::bigint::text as millis
             from (values (now()::timestamptz(3)), ('1900-01-01 00:00:00+00'::timestamptz),
                          ('2026-02-28 23:59:59.999+00'), ('0150-03-01 12:00:00.5+00')) as t(v)`,
      );
      for (const { text, millis } of rows) {
        same(text);
        assert.equal(parse(text).getTime(), Number(millis), `${zone}: ${text}`);
      }
    }
  } finally {
    await client.end();
  }
});

test('the database layer installs it for pg, over postgres-date', async () => {
  await import('../../src/db/database.ts');
  const installed = pg.types.getTypeParser(1184, 'text') as (text: string) => Date;
  assert.equal(installed('2026-11-22 10:11:12.345-03').toISOString(), '2026-11-22T13:11:12.345Z');
  assert.equal(installed('infinity'), Number.POSITIVE_INFINITY, 'the general parser behind it');
  assert.equal(installed.toString(), parse.toString());
});
