import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestApp } from '../../support/app.ts';
import { insertBrand, insertNote, insertRestaurant, NFE_SCOPE } from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';

const JANUARY = { start_date: '2026-01-01T00:00:00Z', end_date: '2026-01-31T23:59:59Z' };

test('GET /v1/nfe-received', async (t) => {
  const { app, ctx } = await buildTestApp(t);
  const db = ctx.db;
  const key = ctx.secrets.fiscalTokenKey;

  const main = await insertRestaurant(db, 'Main');
  const first = await insertBrand(db, main, key, {
    name: 'Primeira',
    cnpj: '11111111000111',
    fiscalToken: 't1',
  });
  const bella = await insertBrand(db, main, key, { name: 'Bella', isDefault: true, fiscalToken: 't2' });
  const gone = await insertBrand(db, main, key, { name: 'Antiga', deleted: true });
  const other = await insertRestaurant(db, 'Other');
  const otherBrand = await insertBrand(db, other, key, { name: 'Outra', isDefault: true });
  const otherNote = await insertNote(db, other, { brand_id: otherBrand });

  const full = await insertNote(db, main, {
    brand_id: bella,
    series: '001',
    state: '35',
    type: '0',
    issuer_document: '01234567000189',
    total: '24560.5',
    manifested_at: '2026-01-11T10:00:00.123Z',
    correction_number: 2,
    correction_text: 'Corrige o endereco',
    correction_issued_at: '2026-01-12T09:00:00-03:00',
    cancellation_reason: 'Duplicada',
    locally_canceled_at: '2026-01-13T10:00:00Z',
    return_reference: 'DEV-7',
    reference: 'REF-7',
    url: 'https://files.example/nfe/7.xml',
    provider_id: 50,
    version: 3,
    digest: 'x5v2Qn9bC1mZkP0aT3yW8rLsH4g=',
    sped: '{"registro": "C100", "valor": 10.50, "itens": [1, 2.250], "ativo": true}',
    processing_at: '2026-01-10T13:01:00Z',
  });
  const unlinked = await insertNote(db, main, { issued_at: '2026-01-10T13:00:00Z' });
  const earlier = await insertNote(db, main, { brand_id: bella, issued_at: '2026-01-09T08:00:00Z' });
  const ofFirst = await insertNote(db, main, { brand_id: first });
  const ciencia = await insertNote(db, main, { brand_id: bella, manifestation_type: 'ciencia' });
  const none = await insertNote(db, main, { brand_id: bella, manifestation_type: null, manifested_at: null });
  const unknown = await insertNote(db, main, { brand_id: bella, manifestation_type: 'desconhecimento' });
  const nulo = await insertNote(db, main, { manifestation_type: 'nulo', manifested_at: null });
  await insertNote(db, main, { brand_id: bella, manifestation_type: 'nao_realizada' });
  await insertNote(db, main, { brand_id: bella, situation: 'cancelada' });
  await insertNote(db, main, { brand_id: bella, canceled_at: '2026-01-12T00:00:00Z' });
  await insertNote(db, main, { brand_id: bella, is_stock_transfer: true });
  await insertNote(db, main, { brand_id: bella, situation: 'processando_autorizacao' });
  await insertNote(db, main, { brand_id: gone });
  await insertNote(db, main, { brand_id: bella, issued_at: '2026-02-01T00:00:00Z' });

  const partner = await bearerFor(db, [main, other], [NFE_SCOPE]);
  const list = (query: Record<string, string>, restaurant = main, headers = partner) =>
    app.inject({
      method: 'GET',
      url: '/v1/nfe-received',
      query: { ...JANUARY, restaurant_id: String(restaurant), ...query },
      headers: { authorization: headers.authorization },
    });
  const ids = async (query: Record<string, string>, restaurant = main) => {
    const res = await list(query, restaurant);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().map((note: { id: number }) => note.id);
  };

  await t.test(
    'without pendente only confirmed notes of the default brand are listed, by issue date then id',
    async () => {
      assert.deepEqual(await ids({}), [earlier, full, unlinked]);
      assert.deepEqual(await ids({ pendente: 'false' }), [earlier, full, unlinked]);
    },
  );

  await t.test('pendente=true lists notes with no manifestation, ciencia or desconhecimento', async () => {
    assert.deepEqual(await ids({ pendente: 'true' }), [ciencia, none, unknown, nulo]);
  });

  await t.test('the default brand selected by id also includes the notes without a brand', async () => {
    assert.deepEqual(await ids({ brand_id: String(bella) }), [earlier, full, unlinked]);
  });

  await t.test('another brand lists only its own notes', async () => {
    assert.deepEqual(await ids({ brand_id: String(first) }), [ofFirst]);
    assert.deepEqual(await ids({ brand_id: String(first), pendente: 'true' }), []);
  });

  await t.test('a deleted, unknown or other restaurant brand is the same 404 brand_not_found', async () => {
    const bodies = [];
    for (const brand of [gone, 999999, otherBrand, 2147483647]) {
      const res = await list({ brand_id: String(brand) });
      assert.equal(res.statusCode, 404);
      const { statusCode, key, message } = res.json();
      bodies.push({ statusCode, key, message });
    }
    assert.equal(bodies[0].key, 'brand_not_found');
    for (const body of bodies) assert.deepEqual(body, bodies[0]);
  });

  await t.test('every common field is returned from the local note', async () => {
    const res = await list({});
    const note = res.json().find((n: { id: number }) => n.id === full);
    assert.deepEqual(note, {
      id: full,
      restaurant_id: main,
      brand_id: bella,
      brand: { id: bella, name: 'Bella', fantasy_name: 'Cantina Bella Ltda', cnpj: '01234567000189' },
      identification: {
        access_key: note.identification.access_key,
        number: note.identification.access_key.slice(25, 34),
        series: '001',
        state: '35',
        type: '0',
      },
      issuer: { name: 'Distribuidora Sul', document: '01234567000189' },
      amounts: { total: '24560.50' },
      status: { situation: 'autorizada', complete: true },
      manifestation: { type: 'confirmacao', manifested_at: '2026-01-11T10:00:00.123Z' },
      correction: { number: 2, text: 'Corrige o endereco', issued_at: '2026-01-12T12:00:00.000Z' },
      cancellation: {
        canceled_at: null,
        reason: 'Duplicada',
        locally_canceled_at: '2026-01-13T10:00:00.000Z',
      },
      references: {
        return_reference: 'DEV-7',
        reference: 'REF-7',
        url: 'https://files.example/nfe/7.xml',
        provider_id: 50,
      },
      fiscal: {
        version: 3,
        digest: 'x5v2Qn9bC1mZkP0aT3yW8rLsH4g=',
        sped: { registro: 'C100', valor: 10.5, itens: [1, 2.25], ativo: true },
      },
      timestamps: {
        issued_at: '2026-01-10T13:00:00.000Z',
        processing_at: '2026-01-10T13:01:00.000Z',
        created_at: '2026-01-10T13:05:00.000Z',
        updated_at: '2026-01-10T13:05:00.000Z',
      },
    });
    assert.match(note.identification.number, /^\d{9}$/);
    // jsonb may reorder keys; numbers keep their written form.
    assert.match(res.body, /"sped":\{[^}]*"valor":10\.50[,}]/);
    assert.match(res.body, /"sped":\{[^}]*"itens":\[1,2\.250\]/);
  });

  await t.test('the number comes from positions 26-34 of the key, leading zeros kept', async () => {
    const res = await list({});
    const note = res.json().find((n: { id: number }) => n.id === unlinked);
    assert.equal(note.identification.number.length, 9);
    assert.equal(note.identification.number, String(Number(note.identification.number)).padStart(9, '0'));
    assert.equal(note.identification.access_key.slice(25, 34), note.identification.number);
    assert.equal(note.identification.number.startsWith('0'), true);
  });

  await t.test('a note without a brand is shown with the default brand, keeping brand_id null', async () => {
    const note = (await list({})).json().find((n: { id: number }) => n.id === unlinked);
    assert.equal(note.brand_id, null);
    assert.equal(note.brand.id, bella);
  });

  await t.test('"nulo" stored locally is shown as no manifestation', async () => {
    const note = (await list({ pendente: 'true' })).json().find((n: { id: number }) => n.id === nulo);
    assert.deepEqual(note.manifestation, { type: null, manifested_at: null });
  });

  await t.test(
    'without a default brand the first brand by id is used, with the notes without a brand',
    async () => {
      const restaurant = await insertRestaurant(db, 'No default');
      const d1 = await insertBrand(db, restaurant, key, { name: 'D1' });
      const d2 = await insertBrand(db, restaurant, key, { name: 'D2' });
      const n1 = await insertNote(db, restaurant, { brand_id: d1 });
      const n2 = await insertNote(db, restaurant, {});
      const n3 = await insertNote(db, restaurant, { brand_id: d2 });
      const credential = await bearerFor(db, [restaurant], [NFE_SCOPE]);
      const res = await list({ restaurant_id: String(restaurant) }, restaurant, credential);
      assert.deepEqual(
        res.json().map((n: { id: number; brand: { id: number } }) => [n.id, n.brand.id]),
        [
          [n1, d1],
          [n2, d1],
        ],
      );
      const second = await list({ brand_id: String(d2) }, restaurant, credential);
      assert.deepEqual(
        second.json().map((n: { id: number }) => n.id),
        [n3],
      );
    },
  );

  await t.test('with no brand at all every note of the restaurant is listed, with a null brand', async () => {
    const restaurant = await insertRestaurant(db, 'No brands');
    const n1 = await insertNote(db, restaurant, {});
    const n2 = await insertNote(db, restaurant, { issued_at: '2026-01-03T00:00:00Z' });
    const credential = await bearerFor(db, [restaurant], [NFE_SCOPE]);
    const res = await list({}, restaurant, credential);
    assert.deepEqual(
      res.json().map((n: { id: number; brand: unknown }) => [n.id, n.brand]),
      [
        [n2, null],
        [n1, null],
      ],
    );
    assert.equal((await list({ brand_id: '1' }, restaurant, credential)).json().key, 'brand_not_found');
  });

  await t.test('when every brand is deleted all notes are listed, each with its linked brand', async () => {
    const restaurant = await insertRestaurant(db, 'Deleted brands');
    const old = await insertBrand(db, restaurant, key, { name: 'Velha', deleted: true });
    const linked = await insertNote(db, restaurant, { brand_id: old });
    const loose = await insertNote(db, restaurant, {});
    const credential = await bearerFor(db, [restaurant], [NFE_SCOPE]);
    const res = await list({}, restaurant, credential);
    assert.deepEqual(
      res.json().map((n: { id: number; brand: { name: string } | null }) => [n.id, n.brand?.name ?? null]),
      [
        [linked, 'Velha'],
        [loose, null],
      ],
    );
  });

  await t.test('a restaurant never sees the notes of another', async () => {
    const single = await bearerFor(db, [other], [NFE_SCOPE]);
    const res = await app.inject({
      method: 'GET',
      url: '/v1/nfe-received',
      query: JANUARY,
      headers: { authorization: single.authorization },
    });
    assert.deepEqual(
      res.json().map((n: { id: number }) => n.id),
      [otherNote],
    );
    const forbidden = await list({}, main, single);
    assert.equal(forbidden.statusCode, 403);
    assert.equal(forbidden.json().key, 'restaurant_forbidden');
  });

  await t.test('a credential for several restaurants must name one', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/v1/nfe-received',
      query: JANUARY,
      headers: { authorization: partner.authorization },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().key, 'restaurant_id_required');
  });

  await t.test('without a credential it is 401, without the scope 403', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/v1/nfe-received', query: JANUARY });
    assert.equal(anonymous.statusCode, 401);
    const products = await bearerFor(db, [main], ['products:read']);
    const res = await list({}, main, products);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().key, 'insufficient_scope');
  });
});
