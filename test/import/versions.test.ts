// An import is a write: a product it changes gets a later updated_at, never an earlier one, so an
// expected_updated_at read before the import cannot match again (optimistic concurrency).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { importData } from '../../src/import/import.ts';
import { decryptSecret } from '../../src/lib/encryption.ts';
import { buildTestApp } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { sessionFor } from '../support/tokens.ts';
import { FISCAL_KEY, world } from './world.ts';

test("an import never moves a product's updated_at back, and moves it forward when it changes the product", async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const headers = sessionFor(1, ctx.secrets.sessionSecret);
  const read = async (id: number) => (await app.inject({ url: `/v1/products/${id}`, headers })).json();
  const OLD = '2026-01-10T13:05:00.000Z';
  const file = () => {
    const data = world();
    for (const product of data.products) Object.assign(product, { created_at: OLD, updated_at: OLD });
    return data;
  };
  await importData(ctx.db, file(), { fiscalTokenKey: FISCAL_KEY });
  assert.equal((await read(1000)).updated_at, OLD, 'a new product takes the instant of the file');

  const edit = await app.inject({
    method: 'PUT',
    url: '/v1/products/1000',
    headers,
    payload: { name: 'Margherita especial', expected_updated_at: OLD },
  });
  assert.equal(edit.statusCode, 200, edit.body);
  const edited = edit.json().updated_at;

  // The old file again: it changes product 1000 back (its name) and leaves 1001 as it is.
  const unchanged = (await read(1001)).updated_at;
  await importData(ctx.db, file(), { fiscalTokenKey: FISCAL_KEY });
  const reverted = await read(1000);
  assert.equal(reverted.name, 'Margherita');
  assert.ok(reverted.updated_at > edited, `${reverted.updated_at} is after ${edited}`);
  assert.equal((await read(1001)).updated_at, unchanged, 'an unchanged product keeps its instant');

  for (const stale of [OLD, edited]) {
    const late = await app.inject({
      method: 'PUT',
      url: '/v1/products/1000',
      headers,
      payload: { price: 50, expected_updated_at: stale },
    });
    assert.equal(late.statusCode, 409, `expected_updated_at ${stale}: ${late.body}`);
  }
});

test('a product imported again without instants keeps its created_at, and its updated_at unless the import changes it', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const headers = sessionFor(1, ctx.secrets.sessionSecret);
  const read = async (id: number) => (await app.inject({ url: `/v1/products/${id}`, headers })).json();
  await importData(ctx.db, world(), { fiscalTokenKey: FISCAL_KEY });
  const [first, other] = [await read(1000), await read(1001)];

  const file = world();
  file.products[0].price = 47.5;
  await importData(ctx.db, file, { fiscalTokenKey: FISCAL_KEY });
  const changed = await read(1000);
  assert.equal(changed.created_at, first.created_at);
  assert.ok(changed.updated_at > first.updated_at, `${changed.updated_at} is after ${first.updated_at}`);
  const unchanged = await read(1001);
  assert.deepEqual([unchanged.created_at, unchanged.updated_at], [other.created_at, other.updated_at]);
});

test('an unchanged file imported again moves no version and keeps the stored instants of its notes', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const { db } = database;
  const state = async () => ({
    versions: (
      await sql`select id, catalog_version, cash_flow_version, nfe_version from restaurants order by id`.execute(
        db,
      )
    ).rows,
    notes: (await sql`select id, created_at, updated_at from nfe_received order by id`.execute(db)).rows,
    brands: (await sql`select * from brands order by id`.execute(db)).rows,
  });
  await importData(db, world(), { fiscalTokenKey: FISCAL_KEY });
  const first = await state();
  await sleep(5);
  await importData(db, world(), { fiscalTokenKey: FISCAL_KEY });
  assert.deepEqual(await state(), first);

  // A note the file changes (without instants) keeps its created_at, and its updated_at moves on;
  // only its restaurant's NF-e version moves. A new fiscal token is stored, encrypted.
  const file = world();
  file.nfe_received[0].situation = 'cancelada';
  file.brands[0].fiscal_token = 'tok-nova';
  await importData(db, file, { fiscalTokenKey: FISCAL_KEY });
  const after = await state();
  const [note] = after.notes as { created_at: Date; updated_at: Date }[];
  const [before] = first.notes as { created_at: Date; updated_at: Date }[];
  assert.deepEqual(note.created_at, before.created_at);
  assert.ok(note.updated_at > before.updated_at, `${note.updated_at} is after ${before.updated_at}`);
  const nfeVersions = (s: typeof first) =>
    (s.versions as { nfe_version: string }[]).map((v) => v.nfe_version);
  assert.notEqual(nfeVersions(after)[0], nfeVersions(first)[0]);
  assert.equal(nfeVersions(after)[1], nfeVersions(first)[1]);
  const brand = (after.brands as { id: number; fiscal_token_encrypted: string }[])[0];
  assert.equal(decryptSecret(brand.fiscal_token_encrypted, FISCAL_KEY), 'tok-nova');
});
