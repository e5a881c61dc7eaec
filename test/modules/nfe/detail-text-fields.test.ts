// Contract 2.8 through the HTTP detail: every text field the provider sends as "" is answered
// as "", one it does not send is absent inside the invoice (null for the recipient), and a null
// stays null. Large documents, mapped in the worker pool, answer the same way.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startFiscalSimulator } from '../../../src/fiscal-simulator/fiscal-simulator.ts';
import { DOCUMENT_GROUPS, ITEM_GROUPS, PROTOCOL_FIELDS } from '../../../src/modules/nfe/provider-fields.ts';
import { buildTestApp } from '../../support/app.ts';
import {
  accessKey,
  every,
  insertBrand,
  insertNote,
  insertRestaurant,
  NFE_SCOPE,
  PROVIDER_SUMMARY,
} from '../../support/nfe-world.ts';
import { bearerFor } from '../../support/tokens.ts';

const TOKEN = 'tok-text-fields-1234';
const documentFields = Object.values(DOCUMENT_GROUPS).flat();
const itemFields = Object.values(ITEM_GROUPS).flat();

test('text fields of the NF-e detail: empty, absent and null', async (t) => {
  const documents = new Map<string, Record<string, unknown> | string>();
  const simulator = await startFiscalSimulator({ notes: documents, tokens: new Set([TOKEN]) });
  t.after(() => simulator.close());
  const { app, ctx } = await buildTestApp(t, { config: { fiscalProviderUrl: simulator.url } });
  const main = await insertRestaurant(ctx.db, 'Main');
  await insertBrand(ctx.db, main, ctx.secrets.fiscalTokenKey, { isDefault: true, fiscalToken: TOKEN });
  const { authorization } = await bearerFor(ctx.db, [main], [NFE_SCOPE]);
  let numbers = 900;
  const detailOf = async (document: Record<string, unknown> | string) => {
    numbers += 1;
    const access_key = accessKey(numbers);
    const id = await insertNote(ctx.db, main, { access_key });
    documents.set(access_key, document);
    const res = await app.inject({
      method: 'GET',
      url: `/v1/nfe-received/info/${id}`,
      headers: { authorization },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  await t.test('every text field the provider sends as "" is answered as ""', async () => {
    const body = await detailOf({
      ...PROVIDER_SUMMARY,
      cnpj_destinatario: '',
      cpf_destinatario: '',
      digest_value: '',
      manifestacao_destinatario: '',
      requisicao_nota_fiscal: { ...every(documentFields, ''), itens: [every(itemFields, '')] },
      protocolo_nota_fiscal: every(PROTOCOL_FIELDS, ''),
    });
    assert.deepEqual(body.recipient, { cnpj: '', cpf: '' });
    assert.deepEqual(body.issuer, { name: '', document: '' });
    assert.equal(body.status.situation, '');
    assert.equal(body.manifestation.type, '');
    assert.equal(body.fiscal.digest, '');
    assert.equal(body.timestamps.issued_at, '');
    for (const [group, fields] of Object.entries(DOCUMENT_GROUPS)) {
      assert.deepEqual(body.invoice[group], every(fields, ''), group);
    }
    for (const [group, fields] of Object.entries(ITEM_GROUPS)) {
      assert.deepEqual(body.invoice.items[0][group], every(fields, ''), `items[].${group}`);
    }
    assert.deepEqual(body.protocol, every(PROTOCOL_FIELDS, ''));
  });

  await t.test('fields the provider does not send are absent, and the recipient is null', async () => {
    const body = await detailOf({
      ...PROVIDER_SUMMARY,
      requisicao_nota_fiscal: { itens: [{}] },
      protocolo_nota_fiscal: {},
    });
    assert.deepEqual(body.recipient, { cnpj: null, cpf: null });
    assert.equal(body.manifestation.type, null);
    assert.equal(body.fiscal.digest, null);
    for (const group of Object.keys(DOCUMENT_GROUPS)) assert.deepEqual(body.invoice[group], {}, group);
    for (const group of Object.keys(ITEM_GROUPS)) assert.deepEqual(body.invoice.items[0][group], {}, group);
    assert.deepEqual(body.invoice.additional_fields, {});
    assert.deepEqual(body.protocol, {});
  });

  await t.test('fields the provider sends as null stay null', async () => {
    const body = await detailOf({
      ...PROVIDER_SUMMARY,
      cnpj_destinatario: null,
      cpf_destinatario: null,
      requisicao_nota_fiscal: { ...every(documentFields, null), itens: [every(itemFields, null)] },
      protocolo_nota_fiscal: every(PROTOCOL_FIELDS, null),
    });
    assert.deepEqual(body.recipient, { cnpj: null, cpf: null });
    for (const [group, fields] of Object.entries(DOCUMENT_GROUPS)) {
      assert.deepEqual(body.invoice[group], every(fields, null), group);
    }
    assert.deepEqual(body.invoice.items[0].commercial, every(ITEM_GROUPS.commercial, null));
    assert.deepEqual(body.protocol, every(PROTOCOL_FIELDS, null));
  });

  await t.test('a document over the worker threshold answers the same fields', async () => {
    const informacoes = 'x'.repeat(400 * 1024);
    const body = await detailOf({
      ...PROVIDER_SUMMARY,
      cpf_destinatario: '',
      requisicao_nota_fiscal: { informacoes_adicionais_contribuinte: informacoes, valor_frete: 0.1 },
    });
    assert.deepEqual(body.recipient, { cnpj: null, cpf: '' });
    assert.equal(body.invoice.additional.informacoes_adicionais_contribuinte, informacoes);
    assert.equal(body.invoice.totals.valor_frete, '0.1');
  });

  await t.test('a document over the worker threshold that is not JSON is the usual 502', async () => {
    numbers += 1;
    const access_key = accessKey(numbers);
    const id = await insertNote(ctx.db, main, { access_key });
    documents.set(access_key, `{"nome_emitente":"${'x'.repeat(400 * 1024)}`);
    const res = await app.inject({
      method: 'GET',
      url: `/v1/nfe-received/info/${id}`,
      headers: { authorization },
    });
    assert.equal(res.statusCode, 502);
    assert.equal(res.json().key, 'fiscal_upstream_error');
  });
});
