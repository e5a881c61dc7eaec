import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { instantOf, isoOf } from '../../../src/modules/nfe/instant-text.ts';
import { receivedNfeListBody } from '../../../src/modules/nfe/list-body.ts';
import { mapReceivedNfe } from '../../../src/modules/nfe/nfe-map.ts';
import type { BrandRow, NoteRow } from '../../../src/modules/nfe/nfe-repository.ts';
import { findNote } from '../../../src/modules/nfe/nfe-repository.ts';
import { NfeListResponse } from '../../../src/modules/nfe/nfe-schema.ts';
import { buildTestApp } from '../../support/app.ts';
import { accessKey, insertBrand, insertNote, insertRestaurant, NFE_SCOPE } from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';
import { schemaSerialiser } from './schema-serialiser.ts';

const TEXTS = [
  'Distribuidora "Aspas" \\ Ltda',
  'Açaí & Pão de Queijo — São Paulo',
  'tab\there, line\nbreak, bell\u0007, nul\u0000',
  'emoji 🍕 and separators \u2028\u2029',
  '</script><script>alert(1)</script>',
  '',
  `long ${'ç'.repeat(1500)}`,
];
const SPEDS = [
  null,
  '{"registro": "C100", "valor": 10.50, "itens": [1, 2.250], "ativo": true}',
  '{"grande": 12345678901234567890.12, "exp": 1e400, "neg": -0, "small": 1E-7, "u": "\\u00e9\\ud83c\\udf55"}',
  '[[1, [2, [3.0]]], {"a": null, "b": [], "c": {}}]',
  '"just text"',
  '42',
];
const INSTANTS = [
  null,
  '2026-01-10 13:00:00',
  '2026-01-10 13:00:00.5',
  '2026-02-28 23:59:59.07',
  '0500-06-01 00:00:00.123',
];

/** Rows of every shape the list can read: nulls, texts that need escapes, SPED numbers, instants. */
function rows(count: number): NoteRow[] {
  return Array.from({ length: count }, (_, i) => {
    const pick = <T>(list: T[], salt = 0) => list[(i * 7 + salt * 3) % list.length];
    const linked = i % 4 !== 0;
    return {
      id: 1000 + i,
      restaurant_id: 7,
      brand_id: linked ? 20 + (i % 3) : null,
      brand_name: linked ? pick(TEXTS, 1) || 'Bella' : null,
      brand_fantasy_name: linked && i % 5 ? pick(TEXTS, 2) : null,
      brand_cnpj: linked && i % 2 ? '01234567000189' : null,
      access_key: accessKey(i + 1),
      series: i % 3 ? '001' : null,
      state: i % 4 ? 'SP' : null,
      type: i % 5 ? String(i % 2) : null,
      issuer_name: pick(TEXTS, 3),
      issuer_document: '12.345.678/0001-99',
      total: i % 2 ? '24560.50' : '-0.07',
      situation: 'autorizada',
      complete: i % 2 === 0,
      manifestation_type: pick(['confirmacao', 'nulo', null, 'ciencia'], 4),
      manifested_at: pick(INSTANTS, 5),
      correction_number: i % 3 ? i : null,
      correction_text: i % 3 ? pick(TEXTS, 6) : null,
      correction_issued_at: pick(INSTANTS, 7),
      canceled_at: pick(INSTANTS, 8),
      cancellation_reason: i % 2 ? null : pick(TEXTS, 9),
      locally_canceled_at: pick(INSTANTS, 10),
      return_reference: i % 6 ? null : 'DEV-7',
      reference: i % 2 ? 'REF-7' : null,
      url: i % 2 ? 'https://files.example/nfe/7.xml?a=1&b="2"' : null,
      provider_id: i % 3 ? 50 + i : null,
      version: 1 + (i % 4),
      digest: i % 2 ? 'x5v2Qn9bC1mZkP0aT3yW8rLsH4g=' : null,
      sped: pick(SPEDS, 11),
      issued_at: pick(INSTANTS.slice(1), 12),
      processing_at: pick(INSTANTS, 13),
      created_at: pick(INSTANTS, 14),
      updated_at: pick(INSTANTS, 15),
    };
  });
}

const DEFAULT_BRANDS: (BrandRow | null)[] = [
  null,
  { id: 20, name: 'Bella', fantasy_name: 'Cantina "Bella"', cnpj: null },
];

test('the list body is, byte for byte, what the response schema serialiser wrote', async (t) => {
  const old = await schemaSerialiser(NfeListResponse);
  t.after(() => old.close());
  for (const defaultBrand of DEFAULT_BRANDS) {
    for (const count of [0, 1, 60]) {
      const notes = rows(count).map((row) => mapReceivedNfe(row, defaultBrand));
      const before = await old.serialise(notes);
      assert.equal(before.statusCode, 200);
      assert.equal(receivedNfeListBody(notes).toString(), before.body);
    }
  }
});

// The schema serialiser writes a nullable instant's text as it is (http/nullable.ts: formats are
// checked on requests only); the list's own check refuses it, and the route answers 500.
test('an instant past year 9999 (not an RFC 3339 date-time) is still refused', () => {
  for (const field of ['manifested_at', 'canceled_at', 'updated_at'] as const) {
    const [row] = rows(1);
    const notes = [mapReceivedNfe({ ...row, [field]: '10000-01-01 00:00:00' }, null)];
    assert.throws(() => receivedNfeListBody(notes), TypeError);
  }
});

test('a stored instant is written as the PostgreSQL driver Date of it prints', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const db = ctx.db;
  const restaurant = await insertRestaurant(db);
  const brand = await insertBrand(db, restaurant, ctx.secrets.fiscalTokenKey, { isDefault: true });
  const driverParse = pg.types.getTypeParser(1184) as (text: string) => Date | number;
  const values = [
    '2026-01-10T13:00:00Z',
    '2026-01-10T13:00:00.5Z',
    '2026-01-10T13:00:00.05Z',
    '2026-01-10T13:00:00.123Z',
    '2026-01-10T23:59:59.999-03:00',
    '0500-06-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '0044-03-15 12:00:00+00 BC',
    '10000-01-01T00:00:00Z',
  ];
  for (const value of values) {
    const id = await insertNote(db, restaurant, { brand_id: brand, manifested_at: value, issued_at: value });
    const row = await findNote(db, restaurant, id);
    const stored = await sql<{
      text: string;
    }>`select manifested_at::text as text from nfe_received where id = ${id}`.execute(db);
    const expected = (driverParse(stored.rows[0].text) as Date).toISOString();
    assert.equal(isoOf(row?.manifested_at as string), expected, value);
    assert.equal(mapReceivedNfe(row as NoteRow, null).timestamps.issued_at, expected, value);
  }
  for (const value of ['infinity', '-infinity']) {
    assert.equal(instantOf(value), driverParse(value));
    assert.throws(() => isoOf(value), TypeError);
  }

  const { authorization } = await bearerFor(db, [restaurant], [NFE_SCOPE]);
  const listed = await insertNote(db, restaurant, {
    brand_id: brand,
    access_key: accessKey(9001),
    manifested_at: '2026-01-11T10:00:00.1Z',
    processing_at: '2026-01-10T10:01:00-03:00',
  });
  const res = await app.inject({
    method: 'GET',
    url: '/v1/nfe-received',
    query: { start_date: '2026-01-10T00:00:00Z', end_date: '2026-01-10T23:59:59Z' },
    headers: { authorization },
  });
  assert.equal(res.statusCode, 200);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  const note = res.json().find((n: { id: number }) => n.id === listed);
  assert.equal(note.manifestation.manifested_at, '2026-01-11T10:00:00.100Z');
  assert.equal(note.timestamps.processing_at, '2026-01-10T13:01:00.000Z');
});
