// Provider documents for the fiscal simulator, built from a note of the import format
// (import-format.md, `nfe_received`). The full document carries what the mapping must survive:
// numbers where strings are expected (written with JSON.rawJSON so 10.50 is served as 10.50),
// ten-decimal unit values, codes with leading zeros, nested arrays and fields no group names.
import { rawJSON } from '../modules/nfe/provider-json.ts';

export type SimulatorNote = {
  access_key: string;
  issuer_name: string;
  issuer_document: string;
  total: string | number;
  issued_at: string;
  situation?: string;
  complete?: boolean;
  manifestation_type?: string | null;
  version?: number;
  digest?: string | null;
  series?: string | null;
  state?: string | null;
  type?: string | null;
};

export type ProviderDocument = Record<string, unknown>;

const RECIPIENT_CNPJ = '01234567000189';

const cents = (value: string | number) => Math.round(Number(value) * 100);
const money = (value: number) => (value / 100).toFixed(2);

/** "2026-01-10T13:00:00Z" -> "2026-01-10T10:00:00-03:00": the provider writes Brasília time. */
function brasiliaTime(instant: string): string {
  const local = new Date(Date.parse(instant) - 3 * 3600_000).toISOString().slice(0, 19);
  return `${local}-03:00`;
}

export function buildProviderDocument(
  note: SimulatorNote,
  options: { summaryOnly?: boolean } = {},
): ProviderDocument {
  const digest = note.digest ?? 'x5v2Qn9bC1mZkP0aT3yW8rLsH4g=';
  const summary: ProviderDocument = {
    nome_emitente: note.issuer_name,
    documento_emitente: note.issuer_document,
    cnpj_destinatario: RECIPIENT_CNPJ,
    cpf_destinatario: '',
    chave_nfe: note.access_key,
    valor_total: money(cents(note.total)),
    data_emissao: brasiliaTime(note.issued_at),
    situacao: note.situation ?? 'autorizada',
    manifestacao_destinatario: note.manifestation_type ?? 'nulo',
    nfe_completa: !options.summaryOnly && (note.complete ?? true),
    tipo_nfe: note.type ?? '1',
    versao: note.version ?? 1,
    digest_value: digest,
    numero_carta_correcao: null,
    carta_correcao: null,
    data_carta_correcao: null,
    data_cancelamento: null,
    justificativa_cancelamento: null,
  };
  if (options.summaryOnly) return summary;
  return {
    ...summary,
    requisicao_nota_fiscal: fullDocument(note, summary),
    protocolo_nota_fiscal: {
      versao: '4.00',
      ambiente: rawJSON('1'),
      versao_aplicativo: 'SP_NFE_PL009_V4',
      chave_nfe: note.access_key,
      data_recebimento: summary.data_emissao,
      numero_protocolo: `1352600${note.access_key.slice(-8)}`,
      digest_value: digest,
      status: rawJSON('100'),
      motivo: 'Autorizado o uso da NF-e',
    },
  };
}

function fullDocument(note: SimulatorNote, summary: ProviderDocument) {
  const total = cents(note.total);
  const freight = total > 2100 ? 1050 : 0;
  const first = Math.min(2469, total - freight);
  const second = total - freight - first;
  const items = [item(1, first, { quantity: '2.0000', unit: '12.3456789012' })];
  if (second > 0) items.push(item(2, second, { quantity: '1.0000', unit: money(second) }));
  return {
    versao: '4.00',
    chave_nfe: `NFe${note.access_key}`,
    uf: note.access_key.slice(0, 2),
    codigo_unico: note.access_key.slice(35, 43),
    natureza_operacao: 'Venda de mercadoria',
    modelo: rawJSON('55'),
    serie: note.series ?? String(Number(note.access_key.slice(22, 25))),
    numero: String(Number(note.access_key.slice(25, 34))),
    data_emissao: summary.data_emissao,
    data_entrada_saida: summary.data_emissao,
    tipo_documento: note.type ?? '1',
    local_destino: '1',
    municipio: '3550308',
    formato_impressao: '1',
    forma_emissao: '1',
    digito_verificador: note.access_key.slice(43),
    ambiente: '1',
    finalidade_emissao: '1',
    consumidor_final: '0',
    presenca_comprador: '9',
    indicador_intermediario: null,
    processo_emissao: '0',
    versao_aplicativo: 'ERP 3.2',
    notas_referenciadas: [{ chave_nfe: '35251212345678000199550010000011111000011118' }],
    chaves_acesso_dfe_anteriores: [],
    cnpj_emitente: note.issuer_document,
    nome_emitente: note.issuer_name,
    logradouro_emitente: 'Rua das Flores',
    numero_emitente: rawJSON('120'),
    bairro_emitente: 'Centro',
    codigo_municipio_emitente: '3550308',
    municipio_emitente: 'Sao Paulo',
    uf_emitente: note.state ?? 'SP',
    cep_emitente: '01001000',
    codigo_pais_emitente: '1058',
    pais_emitente: 'Brasil',
    telefone_emitente: '1133334444',
    inscricao_estadual_emitente: '012345678110',
    cnae_fiscal_emitente: '4637107',
    regime_tributario_emitente: rawJSON('3'),
    cnpj_destinatario: RECIPIENT_CNPJ,
    nome_destinatario: 'Cantina Bella Ltda',
    logradouro_destinatario: 'Avenida Paulista',
    numero_destinatario: '1000',
    bairro_destinatario: 'Bela Vista',
    codigo_municipio_destinatario: '3550308',
    municipio_destinatario: 'Sao Paulo',
    uf_destinatario: 'SP',
    cep_destinatario: '01310100',
    indicador_inscricao_estadual_destinatario: '1',
    inscricao_estadual_destinatario: '098765432110',
    email_destinatario: 'fiscal@cantinabella.example',
    pessoas_autorizadas: [{ cnpj: '00123456000191' }, { cpf: '01234567890' }],
    icms_base_calculo: '0.00',
    icms_valor_total: '0.00',
    icms_valor_total_desonerado: '0.00',
    icms_base_calculo_st: '0.00',
    icms_valor_total_st: '0.00',
    ibs_cbs_base_calculo: money(total),
    ibs_cbs_is_valor_total: rawJSON('12.3'),
    valor_produtos: money(total - freight),
    valor_frete: rawJSON(money(freight)),
    valor_seguro: '0.00',
    valor_desconto: '0.00',
    valor_ipi: '0.00',
    valor_pis: '0.00',
    valor_cofins: '0.00',
    valor_outras_despesas: '0.00',
    valor_total: money(total),
    modalidade_frete: rawJSON('0'),
    cnpj_transportador: '09876543000110',
    nome_transportador: 'Transportes Rapidos',
    uf_transportador: 'SP',
    reboques: [],
    volumes: [
      {
        quantidade: rawJSON('2'),
        especie: 'CX',
        marca: 'Sul',
        peso_liquido: '12.500',
        peso_bruto: rawJSON('13.250'),
        lacres: [{ numero: '0001' }],
      },
    ],
    duplicatas: [{ numero: '001', data_vencimento: '2026-02-10', valor: money(total) }],
    formas_pagamento: [
      { forma_pagamento: '15', valor_pagamento: rawJSON(money(total)), tipo_integracao: rawJSON('2') },
    ],
    informacoes_adicionais_contribuinte: 'Pedido 4471',
    observacoes_contribuinte: [{ campo: 'pedido', texto: '4471' }],
    cnpj_responsavel_tecnico: '05678901000123',
    contato_responsavel_tecnico: 'Suporte ERP',
    email_responsavel_tecnico: 'suporte@erp.example',
    telefone_responsavel_tecnico: '1140040000',
    codigo_futuro_documento: rawJSON('7.50'),
    grupo_futuro: { ativo: true, valor: rawJSON('3') },
    itens: items,
  };
}

function item(numero: number, amount: number, commercial: { quantity: string; unit: string }) {
  return {
    numero_item: rawJSON(String(numero)),
    codigo_produto: `00${numero}7`,
    descricao: numero === 1 ? 'Contrafile bovino resfriado' : 'Farinha de trigo tipo 1',
    codigo_ncm: numero === 1 ? '02013000' : '11010010',
    cfop: rawJSON('5102'),
    nves: [{ nve: 'AA0001' }],
    unidade_comercial: 'KG',
    quantidade_comercial: rawJSON(commercial.quantity),
    valor_unitario_comercial: commercial.unit,
    valor_bruto: money(amount),
    inclui_no_total: '1',
    unidade_tributavel: 'KG',
    quantidade_tributavel: commercial.quantity,
    valor_unitario_tributavel: rawJSON(commercial.unit),
    icms_origem: '0',
    icms_situacao_tributaria: '00',
    icms_base_calculo: money(amount),
    icms_aliquota: rawJSON('18.00'),
    icms_valor: money(Math.round(amount * 0.18)),
    pis_situacao_tributaria: '01',
    cofins_situacao_tributaria: '01',
    ibs_cbs_situacao_tributaria: '000',
    ibs_uf_aliquota: rawJSON('0.1000'),
    cbs_aliquota: '0.9000',
    infos_credito_presumido: [],
    rastros: [{ numero_lote: 'L-0042', quantidade_lote: rawJSON('1.500') }],
    campo_futuro_item: rawJSON('1.50'),
    indicador_futuro_item: rawJSON('4'),
  };
}
