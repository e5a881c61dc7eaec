import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFiscalSimulator } from '../../../src/fiscal-simulator/fiscal-simulator.ts';
import {
  buildProviderDocument,
  type ProviderDocument,
} from '../../../src/fiscal-simulator/simulator-documents.ts';
import { NfeDetailResponse } from '../../../src/modules/nfe/detail-schema.ts';
import { mapReceivedNfe, mapReceivedNfeDetail } from '../../../src/modules/nfe/nfe-map.ts';
import { findNote } from '../../../src/modules/nfe/nfe-repository.ts';
import { parseProviderJson, rawJSON } from '../../../src/modules/nfe/provider-json.ts';
import { assertProviderDocument, mapProviderDetail } from '../../../src/modules/nfe/provider-mapping.ts';
import { buildTestApp } from '../../support/app.ts';
import {
  accessKey,
  insertBrand,
  insertNote,
  insertRestaurant,
  insertSupplier,
  NFE_SCOPE,
  type NoteInput,
} from '../../support/nfe-world.ts';
import { bearerFor, sessionFor } from '../../support/tokens.ts';
import { schemaSerialiser } from './schema-serialiser.ts';

const BELLA_TOKEN = 'tok-bella-SECRET-41c9';
const THIRD_TOKEN = 'tok-third-SECRET-77aa';
const FIRST_TOKEN = 'tok-first-SECRET-refused';

test('GET /v1/nfe-received/info/{id}', async (t) => {
  const documents = new Map<string, ProviderDocument | string>();
  const simulator = await startFiscalSimulator({
    notes: documents,
    tokens: new Set([BELLA_TOKEN, THIRD_TOKEN]),
    requestsPerMinute: 100_000,
  });
  t.after(() => simulator.close());
  const { app, ctx } = await buildTestApp(t, { config: { fiscalProviderUrl: simulator.url } });
  const db = ctx.db;
  const key = ctx.secrets.fiscalTokenKey;

  const main = await insertRestaurant(db, 'Main');
  const first = await insertBrand(db, main, key, { name: 'Primeira', fiscalToken: FIRST_TOKEN });
  const bella = await insertBrand(db, main, key, {
    name: 'Bella',
    isDefault: true,
    fiscalToken: BELLA_TOKEN,
  });
  const third = await insertBrand(db, main, key, { name: 'Terceira', fiscalToken: THIRD_TOKEN });
  const other = await insertRestaurant(db, 'Other');
  await insertSupplier(db, main, { document: '12345678000199', active: false });
  await insertSupplier(db, main, { document: '12345678000199', deleted: true });
  await insertSupplier(db, other, { document: '12345678000199' });
  const supplier = await insertSupplier(db, main, { document: '12.345.678/0001-99' });

  let numbers = 500;
  /** A local note and the provider's document for its key (`provider` overrides the document). */
  async function note(
    input: NoteInput,
    provider: ProviderDocument = {},
    summaryOnly = false,
    restaurant = main,
  ) {
    numbers += 1;
    const access_key = accessKey(numbers);
    const id = await insertNote(db, restaurant, { access_key, ...input });
    const base = buildProviderDocument(
      {
        access_key,
        issuer_name: 'Distribuidora Sul S/A',
        issuer_document: '12345678000199',
        total: '300.00',
        issued_at: '2026-01-10T13:00:00Z',
        manifestation_type: 'confirmacao',
        version: 4,
      },
      { summaryOnly },
    );
    documents.set(access_key, { ...base, ...provider });
    return { id, access_key };
  }

  const { authorization } = await bearerFor(db, [main], [NFE_SCOPE]);
  const detail = (id: number | string, credential = authorization) =>
    app.inject({ method: 'GET', url: `/v1/nfe-received/info/${id}`, headers: { authorization: credential } });
  const ok = async (id: number) => {
    const res = await detail(id);
    assert.equal(res.statusCode, 200, res.body);
    return res;
  };

  const full = await note(
    {
      brand_id: bella,
      series: '001',
      total: '24560.50',
      complete: false,
      manifestation_type: 'ciencia',
      manifested_at: '2026-01-11T10:00:00Z',
      version: 3,
      digest: null,
      provider_id: 50,
      reference: 'REF-9',
      url: 'https://files.example/nfe/9.xml',
      sped: '{"valor": 10.50}',
      issued_at: '2026-01-10T13:00:00Z',
    },
    { valor_total: rawJSON('24560.5000'), digest_value: 'abc=' },
  );

  await t.test(
    'issue date, issuer, total, situation, manifestation, completeness, version and digest come from the provider',
    async () => {
      const body = (await ok(full.id)).json();
      assert.deepEqual(body.issuer, { name: 'Distribuidora Sul S/A', document: '12345678000199' });
      assert.deepEqual(body.amounts, { total: '24560.5000' });
      assert.deepEqual(body.status, { situation: 'autorizada', complete: true });
      assert.deepEqual(body.manifestation, {
        type: 'confirmacao',
        manifested_at: '2026-01-11T10:00:00.000Z',
      });
      assert.equal(body.fiscal.version, 4);
      assert.equal(body.fiscal.digest, 'abc=');
      assert.equal(body.timestamps.issued_at, '2026-01-10T10:00:00-03:00');
    },
  );

  await t.test('the other common fields are the local snapshot', async () => {
    const res = await ok(full.id);
    const body = res.json();
    assert.equal(body.id, full.id);
    assert.equal(body.restaurant_id, main);
    assert.equal(body.brand_id, bella);
    assert.deepEqual(body.brand, {
      id: bella,
      name: 'Bella',
      fantasy_name: 'Cantina Bella Ltda',
      cnpj: '01234567000189',
    });
    assert.deepEqual(body.identification, {
      access_key: full.access_key,
      number: full.access_key.slice(25, 34),
      series: '001',
      state: 'SP',
      type: '1',
    });
    assert.deepEqual(body.references, {
      return_reference: null,
      reference: 'REF-9',
      url: 'https://files.example/nfe/9.xml',
      provider_id: supplier,
    });
    assert.match(res.body, /"sped":\{"valor":10\.50\}/);
    assert.equal(body.timestamps.created_at, '2026-01-10T13:05:00.000Z');
    assert.deepEqual(body.processing, { return_in_progress: false });
    assert.deepEqual(body.recipient, { cnpj: '01234567000189', cpf: '' });
  });

  await t.test(
    'the list shows the local ciencia while the detail shows the provider confirmacao',
    async () => {
      const list = await app.inject({
        method: 'GET',
        url: '/v1/nfe-received',
        query: { start_date: '2026-01-10T00:00:00Z', end_date: '2026-01-10T23:59:59Z', pendente: 'true' },
        headers: { authorization },
      });
      const listed = list.json().find((n: { id: number }) => n.id === full.id);
      assert.equal(listed.manifestation.type, 'ciencia');
      assert.equal(listed.amounts.total, '24560.50');
      assert.equal((await ok(full.id)).json().manifestation.type, 'confirmacao');
    },
  );

  await t.test(
    'the invoice and protocol are serialised exactly as mapped from the provider document',
    async () => {
      const res = await ok(full.id);
      const document = parseProviderJson(JSON.stringify(documents.get(full.access_key)));
      assertProviderDocument(document);
      const mapped = JSON.parse(JSON.stringify(mapProviderDetail(document)));
      assert.deepEqual(res.json().invoice, mapped.invoice);
      assert.deepEqual(res.json().protocol, mapped.protocol);
    },
  );

  await t.test('every group of the document keeps the provider text', async () => {
    const { invoice } = (await ok(full.id)).json();
    assert.equal(invoice.identification.modelo, '55');
    assert.equal(invoice.identification.numero, String(Number(full.access_key.slice(25, 34))));
    assert.equal(invoice.identification.indicador_intermediario, null);
    assert.equal(Object.hasOwn(invoice.issuer, 'complemento_emitente'), false);
    assert.deepEqual(invoice.references.chaves_acesso_dfe_anteriores, []);
    assert.equal(
      invoice.references.notas_referenciadas[0].chave_nfe,
      '35251212345678000199550010000011111000011118',
    );
    assert.equal(invoice.issuer.numero_emitente, '120');
    assert.equal(invoice.recipient.nome_destinatario, 'Cantina Bella Ltda');
    assert.equal(invoice.authorized_parties.pessoas_autorizadas[0].cnpj, '00123456000191');
    assert.equal(invoice.taxes.ibs_cbs_is_valor_total, '12.3');
    assert.equal(invoice.totals.valor_frete, '10.50');
    assert.deepEqual(invoice.transport.reboques, []);
    assert.equal(invoice.transport.volumes[0].peso_bruto, '13.250');
    assert.deepEqual(invoice.transport.volumes[0].lacres, [{ numero: '0001' }]);
    assert.equal(invoice.billing.duplicatas[0].numero, '001');
    assert.deepEqual(invoice.billing.formas_pagamento, [
      { forma_pagamento: '15', valor_pagamento: '300.00', tipo_integracao: 2 },
    ]);
    assert.deepEqual(invoice.additional.observacoes_contribuinte, [{ campo: 'pedido', texto: '4471' }]);
    assert.equal(invoice.technical_contact.cnpj_responsavel_tecnico, '05678901000123');
    assert.deepEqual(invoice.additional_fields, {
      codigo_futuro_documento: 7.5,
      grupo_futuro: { ativo: true, valor: 3 },
    });
  });

  await t.test('items keep ten decimals, leading zeros and numbers as their text', async () => {
    const res = await ok(full.id);
    const [item] = res.json().invoice.items;
    assert.equal(item.commercial.valor_unitario_comercial, '12.3456789012');
    assert.equal(item.taxable.valor_unitario_tributavel, '12.3456789012');
    assert.equal(item.commercial.quantidade_comercial, '2.0000');
    assert.equal(item.identification.codigo_ncm, '02013000');
    assert.equal(item.identification.codigo_produto, '0017');
    assert.equal(item.identification.cfop, '5102');
    assert.deepEqual(item.identification.nves, [{ nve: 'AA0001' }]);
    assert.equal(item.taxes.icms_aliquota, '18.00');
    assert.equal(item.taxes.ibs_uf_aliquota, '0.1000');
    assert.deepEqual(item.taxes.infos_credito_presumido, []);
    assert.equal(item.amounts.valor_bruto, '24.69');
    assert.deepEqual(item.additional.rastros, [{ numero_lote: 'L-0042', quantidade_lote: '1.500' }]);
    assert.match(res.body, /"additional_fields":\{"campo_futuro_item":1\.50,"indicador_futuro_item":4\}/);
    assert.match(res.body, /"codigo_futuro_documento":7\.50/);
    assert.match(res.body, /"valor_unitario_tributavel":"12\.3456789012"/);
  });

  await t.test(
    'the body is, byte for byte, what the schema serialiser wrote for the mapped note',
    async () => {
      const old = await schemaSerialiser(NfeDetailResponse);
      t.after(() => old.close());
      const big = await note(
        { brand_id: bella, return_reference: 'DEV-9', sped: JSON.stringify({ texto: 'x'.repeat(20_000) }) },
        { documento_emitente: '12.345.678/0001-99', campo_topo: rawJSON('1.50') },
      );
      for (const { id, access_key } of [full, big]) {
        const res = await ok(id);
        assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
        const row = await findNote(db, main, id);
        const document = parseProviderJson(JSON.stringify(documents.get(access_key)));
        assertProviderDocument(document);
        const mapped = mapProviderDetail(document);
        const local = mapReceivedNfe(row as NonNullable<typeof row>, null);
        const expected = await old.serialise(
          mapReceivedNfeDetail(local, mapped, { providerId: supplier, returnInProgress: false }),
        );
        assert.equal(res.body, expected.body);
        assert.equal(res.headers['content-length'], String(Buffer.byteLength(expected.body)));
      }
    },
  );

  await t.test('the protocol carries its nine fields as text', async () => {
    const { protocol } = (await ok(full.id)).json();
    assert.deepEqual(Object.keys(protocol).sort(), [
      'ambiente',
      'chave_nfe',
      'data_recebimento',
      'digest_value',
      'motivo',
      'numero_protocolo',
      'status',
      'versao',
      'versao_aplicativo',
    ]);
    assert.equal(protocol.status, '100');
    assert.equal(protocol.ambiente, '1');
    assert.equal(protocol.chave_nfe, full.access_key);
  });

  await t.test('a summary-only answer gives null invoice and protocol', async () => {
    const summary = await note({ brand_id: bella }, {}, true);
    const body = (await ok(summary.id)).json();
    assert.equal(body.invoice, null);
    assert.equal(body.protocol, null);
    assert.equal(body.status.complete, false);
    assert.deepEqual(body.recipient, { cnpj: '01234567000189', cpf: '' });
  });

  await t.test('"nulo" from the provider is no manifestation', async () => {
    const pending = await note({ brand_id: bella }, { manifestacao_destinatario: 'nulo' });
    assert.equal((await ok(pending.id)).json().manifestation.type, null);
  });

  await t.test(
    'a note without a brand is queried with the default brand token and shown with it',
    async () => {
      const unlinked = await note({ brand_id: null });
      const body = (await ok(unlinked.id)).json();
      assert.equal(body.brand_id, null);
      assert.equal(body.brand.id, bella);
    },
  );

  await t.test('a linked brand is queried with its own token, not the default one', async () => {
    const ofThird = await note({ brand_id: third });
    assert.equal((await ok(ofThird.id)).json().brand.name, 'Terceira');
    const ofFirst = await note({ brand_id: first });
    assert.equal((await detail(ofFirst.id)).statusCode, 502);
  });

  await t.test('without a default brand the first brand by id gives the token', async () => {
    const restaurant = await insertRestaurant(db, 'No default');
    await insertBrand(db, restaurant, key, { name: 'D1', fiscalToken: THIRD_TOKEN });
    await insertBrand(db, restaurant, key, { name: 'D2', fiscalToken: FIRST_TOKEN });
    const unlinked = await note({}, {}, false, restaurant);
    const credential = await bearerFor(db, [restaurant], [NFE_SCOPE]);
    const res = await detail(unlinked.id, credential.authorization);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().brand.name, 'D1');
  });

  await t.test(
    'the supplier is looked up by issuer document among active, non-deleted suppliers',
    async () => {
      const unknownIssuer = await note(
        { brand_id: bella, provider_id: 50 },
        { documento_emitente: '99887766000155' },
      );
      assert.equal((await ok(unknownIssuer.id)).json().references.provider_id, null);
      assert.equal((await ok(full.id)).json().references.provider_id, supplier);
    },
  );

  await t.test(
    'a return is in progress only while another note with that reference is processing',
    async () => {
      await insertNote(db, main, { reference: 'DEV-1', situation: 'processando_autorizacao' });
      await insertNote(db, main, { reference: 'DEV-2', situation: 'autorizada' });
      await insertNote(db, other, { reference: 'DEV-3', situation: 'processando_autorizacao' });
      const progress = async (input: NoteInput) =>
        (await ok((await note({ brand_id: bella, ...input })).id)).json().processing.return_in_progress;
      assert.equal(await progress({ return_reference: 'DEV-1' }), true);
      assert.equal(await progress({ return_reference: 'DEV-2' }), false);
      assert.equal(await progress({ return_reference: 'DEV-3' }), false);
      assert.equal(await progress({ return_reference: null, reference: 'DEV-1' }), false);
      assert.equal(
        await progress({ return_reference: 'SELF', reference: 'SELF', situation: 'processando_autorizacao' }),
        false,
      );
    },
  );

  await t.test('a restaurant session reads its own notes', async () => {
    const session = sessionFor(main, ctx.secrets.sessionSecret);
    assert.equal((await detail(full.id, session.authorization)).statusCode, 200);
  });
});
