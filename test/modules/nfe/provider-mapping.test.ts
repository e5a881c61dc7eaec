import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildProviderDocument } from '../../../src/fiscal-simulator/simulator-documents.ts';
import { parseProviderJson } from '../../../src/modules/nfe/provider-json.ts';
import {
  assertProviderDocument,
  mapProviderDetail,
  ProviderDocumentError,
} from '../../../src/modules/nfe/provider-mapping.ts';

const note = {
  access_key: '35260112345678000199550010000012341000012345',
  issuer_name: 'Distribuidora Sul',
  issuer_document: '12345678000199',
  total: '300.00',
  issued_at: '2026-01-10T13:00:00Z',
  manifestation_type: 'ciencia',
  version: 3,
};

/** What the client does: the provider's text, parsed and checked, then mapped; as the API serialises it. */
function detailOf(body: string) {
  const document = parseProviderJson(body);
  assertProviderDocument(document);
  return JSON.parse(JSON.stringify(mapProviderDetail(document)));
}

const summaryText = (extra: string) =>
  `{"nome_emitente":"Distribuidora Sul","documento_emitente":"01234567000189","valor_total":24560.00,
    "data_emissao":"2017-11-07T01:00:00-02:00","situacao":"autorizada","nfe_completa":true,"versao":4,${extra}}`;

test('the common fields come from the provider summary, keeping offset and precision', () => {
  const detail = detailOf(summaryText('"digest_value":"abc=","manifestacao_destinatario":"confirmacao"'));
  assert.deepEqual(detail.summary, {
    issuedAt: '2017-11-07T01:00:00-02:00',
    issuerName: 'Distribuidora Sul',
    issuerDocument: '01234567000189',
    total: '24560.00',
    situation: 'autorizada',
    manifestationType: 'confirmacao',
    complete: true,
    version: 4,
    digest: 'abc=',
  });
});

test('the literal "nulo" and null mean no manifestation; nao_realizada is kept as the provider code', () => {
  assert.equal(detailOf(summaryText('"manifestacao_destinatario":"nulo"')).summary.manifestationType, null);
  assert.equal(detailOf(summaryText('"manifestacao_destinatario":null')).summary.manifestationType, null);
  const notDone = detailOf(summaryText('"manifestacao_destinatario":"nao_realizada"'));
  assert.equal(notDone.summary.manifestationType, 'nao_realizada');
  assert.equal(notDone.summary.digest, null);
});

test('the recipient keeps leading zeros and an empty CPF string, and is null when not informed', () => {
  const given = detailOf(summaryText('"cnpj_destinatario":"01234567000189","cpf_destinatario":""'));
  assert.deepEqual(given.recipient, { cnpj: '01234567000189', cpf: '' });
  assert.deepEqual(detailOf(summaryText('"cnpj_destinatario":null')).recipient, { cnpj: null, cpf: null });
});

test('a summary-only answer gives a null invoice and a null protocol', () => {
  const summaryOnly = detailOf(JSON.stringify(buildProviderDocument(note, { summaryOnly: true })));
  assert.equal(summaryOnly.invoice, null);
  assert.equal(summaryOnly.protocol, null);
  assert.equal(summaryOnly.summary.complete, false);
  const nulls = detailOf(summaryText('"requisicao_nota_fiscal":null,"protocolo_nota_fiscal":null'));
  assert.equal(nulls.invoice, null);
  assert.equal(nulls.protocol, null);
});

test('a full document is grouped exactly as the contract groups it', () => {
  const { invoice, protocol } = detailOf(JSON.stringify(buildProviderDocument(note)));
  assert.deepEqual(Object.keys(invoice).sort(), [
    'additional',
    'additional_fields',
    'authorized_parties',
    'billing',
    'identification',
    'issuer',
    'items',
    'recipient',
    'references',
    'taxes',
    'technical_contact',
    'totals',
    'transport',
  ]);
  assert.equal(invoice.identification.chave_nfe, `NFe${note.access_key}`);
  assert.equal(invoice.identification.modelo, '55');
  assert.equal(invoice.identification.indicador_intermediario, null);
  assert.deepEqual(invoice.references.notas_referenciadas, [
    { chave_nfe: '35251212345678000199550010000011111000011118' },
  ]);
  assert.deepEqual(invoice.references.chaves_acesso_dfe_anteriores, []);
  assert.equal(invoice.issuer.cnpj_emitente, '12345678000199');
  assert.equal(invoice.issuer.numero_emitente, '120');
  assert.equal(invoice.recipient.cnpj_destinatario, '01234567000189');
  assert.equal(invoice.authorized_parties.pessoas_autorizadas[0].cnpj, '00123456000191');
  assert.equal(invoice.taxes.ibs_cbs_base_calculo, '300.00');
  assert.equal(invoice.totals.valor_frete, '10.50');
  assert.equal(invoice.totals.valor_total, '300.00');
  assert.equal(invoice.transport.modalidade_frete, '0');
  assert.deepEqual(invoice.transport.reboques, []);
  assert.deepEqual(invoice.transport.volumes, [
    {
      quantidade: '2',
      especie: 'CX',
      marca: 'Sul',
      peso_liquido: '12.500',
      peso_bruto: '13.250',
      lacres: [{ numero: '0001' }],
    },
  ]);
  assert.equal(invoice.billing.duplicatas[0].valor, '300.00');
  assert.deepEqual(invoice.billing.formas_pagamento, [
    { forma_pagamento: '15', valor_pagamento: '300.00', tipo_integracao: 2 },
  ]);
  assert.equal(invoice.additional.informacoes_adicionais_contribuinte, 'Pedido 4471');
  assert.equal(invoice.technical_contact.email_responsavel_tecnico, 'suporte@erp.example');
  assert.deepEqual(protocol, {
    versao: '4.00',
    ambiente: '1',
    versao_aplicativo: 'SP_NFE_PL009_V4',
    chave_nfe: note.access_key,
    data_recebimento: '2026-01-10T10:00:00-03:00',
    numero_protocolo: '135260000012345',
    digest_value: 'x5v2Qn9bC1mZkP0aT3yW8rLsH4g=',
    status: '100',
    motivo: 'Autorizado o uso da NF-e',
  });
});

test('items are grouped with every value as text, keeping ten decimals and leading zeros', () => {
  const [first, second] = detailOf(JSON.stringify(buildProviderDocument(note))).invoice.items;
  assert.deepEqual(Object.keys(first).sort(), [
    'additional',
    'additional_fields',
    'amounts',
    'commercial',
    'identification',
    'taxable',
    'taxes',
  ]);
  assert.deepEqual(first.identification, {
    numero_item: '1',
    codigo_produto: '0017',
    descricao: 'Contrafile bovino resfriado',
    codigo_ncm: '02013000',
    cfop: '5102',
    nves: [{ nve: 'AA0001' }],
  });
  assert.equal(first.commercial.valor_unitario_comercial, '12.3456789012');
  assert.equal(first.commercial.quantidade_comercial, '2.0000');
  assert.equal(first.taxable.valor_unitario_tributavel, '12.3456789012');
  assert.equal(first.taxes.icms_aliquota, '18.00');
  assert.deepEqual(first.taxes.infos_credito_presumido, []);
  assert.deepEqual(first.amounts, { valor_bruto: '24.69', inclui_no_total: '1' });
  assert.deepEqual(first.additional.rastros, [{ numero_lote: 'L-0042', quantidade_lote: '1.500' }]);
  assert.equal(second.identification.numero_item, '2');
});

const withDocument = (document: string, top = '') =>
  summaryText(`"requisicao_nota_fiscal":${document}${top ? `,${top}` : ''}`);

test('ibs_cbs_is_valor_total is always text: a number becomes its text, text keeps its precision', () => {
  const taxes = (value: string) =>
    detailOf(withDocument(`{"ibs_cbs_is_valor_total":${value}}`)).invoice.taxes;
  assert.deepEqual(taxes('12.3'), { ibs_cbs_is_valor_total: '12.3' });
  assert.deepEqual(taxes('12.30'), { ibs_cbs_is_valor_total: '12.30' });
  assert.deepEqual(taxes('"12.3000"'), { ibs_cbs_is_valor_total: '12.3000' });
  assert.deepEqual(taxes('null'), { ibs_cbs_is_valor_total: null });
});

test('a field the provider does not send is absent, a null stays null and an empty array stays', () => {
  const { invoice } = detailOf(withDocument('{"valor_frete":null,"volumes":[],"duplicatas":null}'));
  assert.deepEqual(invoice.totals, { valor_frete: null });
  assert.deepEqual(invoice.transport, { volumes: [] });
  assert.deepEqual(invoice.billing, { duplicatas: null });
  assert.deepEqual(invoice.identification, {});
  assert.equal(Object.hasOwn(invoice, 'items'), false);
  assert.deepEqual(invoice.additional_fields, {});
});

test('fields no group names go to additional_fields with their names and JSON types', () => {
  const body = JSON.stringify(buildProviderDocument(note));
  const document = parseProviderJson(body);
  assertProviderDocument(document);
  const serialised = JSON.stringify(mapProviderDetail(document));
  assert.match(
    serialised,
    /"additional_fields":\{"codigo_futuro_documento":7\.50,"grupo_futuro":\{"ativo":true,"valor":3\}\}/,
  );
  assert.match(serialised, /"additional_fields":\{"campo_futuro_item":1\.50,"indicador_futuro_item":4\}/);
});

test('top-level provider data beyond the summary lands in the document additional_fields', () => {
  const { invoice } = detailOf(withDocument('{"serie":"1"}', '"requisicao_carta_correcao":{"sequencia":2}'));
  assert.deepEqual(invoice.additional_fields, { requisicao_carta_correcao: { sequencia: 2 } });
});

test('items are read from itens, or from items when itens is absent, and null items stay null', () => {
  const items = (document: string) => detailOf(withDocument(document)).invoice;
  const fallback = items('{"items":[{"numero_item":1,"futuro":[1,"a"]}]}');
  assert.deepEqual(fallback.items[0].identification, { numero_item: '1' });
  assert.deepEqual(fallback.items[0].additional_fields, { futuro: [1, 'a'] });
  assert.deepEqual(fallback.additional_fields, {});
  const both = items('{"itens":[{"cfop":"5102"}],"items":[{"cfop":"0"}]}');
  assert.deepEqual(both.items[0].identification, { cfop: '5102' });
  assert.deepEqual(both.additional_fields, { items: [{ cfop: '0' }] });
  assert.equal(items('{"itens":null}').items, null);
  assert.deepEqual(items('{"itens":[]}').items, []);
});

test('a body that is not the expected document is rejected for a 502', () => {
  const rejects = (body: string) =>
    assert.throws(() => assertProviderDocument(parseProviderJson(body)), ProviderDocumentError, body);
  rejects('[]');
  rejects('"text"');
  rejects('null');
  rejects('{}');
  rejects(summaryText('"x":1').replace('"situacao":"autorizada"', '"situacao":1'));
  rejects(summaryText('"x":1').replace('"nfe_completa":true', '"nfe_completa":"sim"'));
  rejects(summaryText('"x":1').replace('"versao":4', '"versao":"4.5"'));
  rejects(summaryText('"x":1').replace('24560.00', '"R$ 24.560,00"'));
  rejects(summaryText('"digest_value":{}'));
  rejects(summaryText('"requisicao_nota_fiscal":[]'));
  rejects(summaryText('"protocolo_nota_fiscal":"100"'));
  rejects(withDocument('{"itens":{"numero_item":"1"}}'));
  rejects(withDocument('{"itens":["1"]}'));
});

test('a document of more than 20,000 items is rejected for a 502 before it is mapped', () => {
  const items = (count: number) => withDocument(`{"itens":[${Array(count).fill('{}').join(',')}]}`);
  assert.equal(detailOf(items(20_000)).invoice.items.length, 20_000);
  assert.throws(() => detailOf(items(20_001)), ProviderDocumentError);
});
