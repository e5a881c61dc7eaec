// The list is kept in memory per restaurant, query and nfe_version (list-cache.ts). These tests warm
// it on two instances of one database, write the way the importer or psql would, and check every
// answer, byte for byte, against a render read from the database on the spot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { AppError } from '../../../src/http/errors.ts';
import { importData } from '../../../src/import/import.ts';
import { parseNfeListQuery } from '../../../src/modules/nfe/list-query.ts';
import type { NfeListQuerystring } from '../../../src/modules/nfe/nfe-schema.ts';
import { renderReceivedNfeList } from '../../../src/modules/nfe/nfe-service.ts';
import { twoInstances } from '../../support/app.ts';
import { accessKey, insertBrand, insertNote, insertRestaurant, NFE_SCOPE } from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';
import { listsFromMemory } from './list-metrics.ts';

const JANUARY = { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-31T23:59:59Z' };

test('the kept NF-e list equals a fresh render through every kind of write, on every instance', async (t) => {
  const { one, two } = await twoInstances(t, { config: { rateLimitPerMinute: 1_000_000 } });
  const db = one.ctx.db;
  const key = one.ctx.secrets.fiscalTokenKey;

  const main = await insertRestaurant(db, 'Main');
  const bella = await insertBrand(db, main, key, { name: 'Bella', isDefault: true });
  const first = await insertBrand(db, main, key, { name: 'Primeira', cnpj: null });
  await insertNote(db, main, { brand_id: bella, issuer_name: 'Açaí & Pão 🍕 "Sul"' });
  await insertNote(db, main, { issued_at: '2026-01-05T08:00:00Z' });
  await insertNote(db, main, { brand_id: first, issued_at: '2026-01-20T10:00:00Z' });
  await insertNote(db, main, { brand_id: bella, manifestation_type: 'ciencia' });
  await insertNote(db, main, { brand_id: first, manifestation_type: null, manifested_at: null });
  const other = await insertRestaurant(db, 'Other');
  const otherBrand = await insertBrand(db, other, key, { name: 'Outra', isDefault: true });
  await insertNote(db, other, { brand_id: otherBrand });
  const partner = await bearerFor(db, [main, other], [NFE_SCOPE]);

  const QUERIES: [number, NfeListQuerystring][] = [
    [main, JANUARY],
    [main, { ...JANUARY, pendente: true }],
    [main, { ...JANUARY, brand_id: first }],
    [main, { ...JANUARY, brand_id: first, pendente: true }],
    [main, { start_date: '2026-01-10T13:00:00Z', end_date: '2026-01-31T23:59:59Z' }],
    [main, { start_date: '2026-01-10T13:00:01Z', end_date: '2026-01-31T23:59:59Z' }],
    [other, JANUARY],
  ];
  const get = (app: FastifyInstance, restaurant: number, query: NfeListQuerystring) =>
    app.inject({
      method: 'GET',
      url: '/v1/nfe-received',
      query: Object.fromEntries(
        Object.entries({ ...query, restaurant_id: restaurant }).map(([name, value]) => [name, String(value)]),
      ),
      headers: { authorization: partner.authorization },
    });

  /** The route's answer is the list rendered from the database now (or the same error). */
  async function agrees(app: FastifyInstance, restaurant: number, query: NfeListQuerystring) {
    const res = await get(app, restaurant, query);
    const fresh = await renderReceivedNfeList(db, restaurant, parseNfeListQuery(query)).catch((e) => e);
    if (fresh instanceof AppError) {
      assert.deepEqual([res.statusCode, res.json().key], [fresh.statusCode, fresh.key]);
      return res.body;
    }
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body, fresh.toString(), `${restaurant} ${JSON.stringify(query)} differs`);
    assert.ok(res.rawPayload.equals(fresh), 'the same bytes');
    return res.body;
  }
  const everywhere = async () => {
    for (const app of [one.app, two.app]) for (const [r, q] of QUERIES) await agrees(app, r, q);
  };

  await t.test('a list read again is sent from memory, the same bytes', async () => {
    await everywhere();
    const before = await listsFromMemory();
    await everywhere();
    assert.equal((await listsFromMemory()) - before, 2 * QUERIES.length);
  });

  await t.test('different queries and restaurants never share an entry', async () => {
    const bodies = new Set<string>();
    for (const [r, q] of QUERIES) bodies.add(await agrees(one.app, r, q));
    assert.equal(bodies.size, QUERIES.length, 'the world gives every query its own answer');
  });

  await t.test('one spelling of a period shares the entry of another (offset, fraction)', async () => {
    await agrees(one.app, main, JANUARY);
    const before = await listsFromMemory();
    const same = { start_date: '2025-12-31T21:00:00.750-03:00', end_date: '2026-01-31T23:59:59.001' };
    assert.equal(await agrees(one.app, main, same), await agrees(one.app, main, JANUARY));
    assert.equal((await listsFromMemory()) - before, 2);
  });

  const note = (id: number, issuer: string) => ({
    id,
    restaurant_id: main,
    brand_id: bella,
    access_key: accessKey(id),
    issuer_name: issuer,
    issuer_document: '12345678000199',
    total: 10.5,
    situation: 'autorizada',
    manifestation_type: 'confirmacao',
    issued_at: '2026-01-15T12:00:00Z',
  });
  const writes: [string, () => Promise<unknown>][] = [
    ['an import of a note', () => importData(db, { nfe_received: [note(90001, 'Importada')] })],
    ['its re-import with another issuer', () => importData(db, { nfe_received: [note(90001, 'Outra')] })],
    [
      'a note inserted in SQL',
      () =>
        sql`insert into nfe_received (id, restaurant_id, brand_id, access_key, issuer_name, issuer_document,
        total, situation, manifestation_type, issued_at) values (90002, ${main}, null, ${accessKey(90002)},
        'SQL', '1', 7, 'autorizada', 'confirmacao', '2026-01-02T00:00:00Z')`.execute(db),
    ],
    [
      'a note confirmed in SQL (it leaves the pending list)',
      () =>
        sql`update nfe_received set manifestation_type = 'confirmacao' where manifestation_type is null`.execute(
          db,
        ),
    ],
    [
      'a note canceled in SQL',
      () => sql`update nfe_received set canceled_at = now() where id = 90002`.execute(db),
    ],
    ['a note deleted in SQL', () => sql`delete from nfe_received where id = 90001`.execute(db)],
    [
      'a brand renamed in SQL',
      () => sql`update brands set name = 'Bella Nova' where id = ${bella}`.execute(db),
    ],
    [
      'the default brand moved in SQL',
      () => sql`update brands set is_default = (id = ${first}) where restaurant_id = ${main}`.execute(db),
    ],
    [
      'a brand inserted in SQL as the default',
      () =>
        db.transaction().execute(async (tx) => {
          await sql`update brands set is_default = false where restaurant_id = ${main}`.execute(tx);
          await sql`insert into brands (id, restaurant_id, name, is_default)
            values (90003, ${main}, 'Nova', true)`.execute(tx);
        }),
    ],
    [
      'a brand deleted in SQL (the first by id is the default again)',
      () => sql`delete from brands where id = 90003`.execute(db),
    ],
    [
      'a brand soft-deleted in SQL (its filter is 404)',
      () => sql`update brands set deleted_at = now() where id = ${first}`.execute(db),
    ],
    [
      'one transaction writing notes of both restaurants',
      () =>
        db.transaction().execute(async (tx) => {
          await sql`update nfe_received set total = total + 1 where restaurant_id = ${other}`.execute(tx);
          await sql`update nfe_received set total = total + 1 where restaurant_id = ${main}`.execute(tx);
          await sql`update brands set cnpj = '99' where restaurant_id = ${main}`.execute(tx);
        }),
    ],
    ['the notes truncated', () => sql`truncate nfe_received`.execute(db)],
  ];
  for (const [name, write] of writes) {
    await t.test(`${name}: every list follows at once on both instances`, async () => {
      await everywhere();
      await write();
      await everywhere();
    });
  }
});
