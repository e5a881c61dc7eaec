// Field names of the contract's detail groups (2.8), as the provider names them (Focus NFe v2).

const names = (list: string) => list.trim().split(/\s+/);

export const DOCUMENT_GROUPS: Record<string, string[]> = {
  identification: names(`versao chave_nfe uf codigo_unico natureza_operacao modelo serie numero data_emissao
    data_entrada_saida tipo_documento local_destino municipio formato_impressao forma_emissao digito_verificador
    ambiente finalidade_emissao consumidor_final presenca_comprador indicador_intermediario processo_emissao
    versao_aplicativo`),
  references: names('notas_referenciadas chaves_acesso_dfe_anteriores chaves_nfe_antecipacao_pagamento'),
  issuer: names(`cnpj_emitente nome_emitente logradouro_emitente numero_emitente complemento_emitente
    bairro_emitente codigo_municipio_emitente municipio_emitente uf_emitente cep_emitente codigo_pais_emitente
    pais_emitente telefone_emitente inscricao_estadual_emitente inscricao_municipal_emitente cnae_fiscal_emitente
    regime_tributario_emitente`),
  recipient: names(`cnpj_destinatario nome_destinatario logradouro_destinatario numero_destinatario
    bairro_destinatario codigo_municipio_destinatario municipio_destinatario uf_destinatario cep_destinatario
    codigo_pais_destinatario pais_destinatario telefone_destinatario indicador_inscricao_estadual_destinatario
    inscricao_estadual_destinatario email_destinatario`),
  authorized_parties: names('pessoas_autorizadas'),
  taxes: names(`icms_base_calculo icms_valor_total icms_valor_total_desonerado fcp_valor_total
    icms_base_calculo_st icms_valor_total_st fcp_valor_total_st fcp_valor_total_retido_st ibs_cbs_base_calculo
    ibs_cbs_is_valor_total`),
  totals: names(`valor_produtos valor_frete valor_seguro valor_desconto valor_total_ii valor_ipi
    valor_ipi_devolvido valor_pis valor_cofins valor_outras_despesas valor_total`),
  transport: names(`modalidade_frete cnpj_transportador nome_transportador inscricao_estadual_transportador
    endereco_transportador municipio_transportador uf_transportador reboques volumes`),
  billing: names('duplicatas formas_pagamento'),
  additional: names(`informacoes_adicionais_contribuinte observacoes_contribuinte observacoes_fisco
    processos_referenciados cana_fornecimentos cana_deducoes agropecuario_defensivo`),
  technical_contact: names(`cnpj_responsavel_tecnico contato_responsavel_tecnico email_responsavel_tecnico
    telefone_responsavel_tecnico`),
};

export const ITEM_GROUPS: Record<string, string[]> = {
  identification: names('numero_item codigo_produto descricao codigo_ncm cest cfop nves'),
  commercial: names(
    'codigo_barras_comercial unidade_comercial quantidade_comercial valor_unitario_comercial',
  ),
  taxes: names(`ipi_codigo_enquadramento_legal icms_percentual_partilha ibs_cbs_situacao_tributaria
    ibs_cbs_classificacao_tributaria ibs_cbs_base_calculo ibs_uf_aliquota ibs_uf_percentual_reducao_aliquota
    ibs_uf_aliquota_efetiva ibs_uf_valor ibs_mun_aliquota ibs_mun_percentual_reducao_aliquota
    ibs_mun_aliquota_efetiva ibs_mun_valor ibs_valor_total cbs_aliquota cbs_percentual_reducao_aliquota
    cbs_aliquota_efetiva cbs_valor icms_origem icms_situacao_tributaria icms_modalidade_base_calculo
    icms_base_calculo icms_aliquota icms_valor ipi_situacao_tributaria pis_situacao_tributaria
    cofins_situacao_tributaria infos_credito_presumido`),
  amounts: names('valor_bruto inclui_no_total valor_total_item'),
  taxable: names(
    'codigo_barras_tributavel unidade_tributavel quantidade_tributavel valor_unitario_tributavel',
  ),
  additional: names(`documentos_importacao detalhes_exportacao rastros armamentos origens_combustivel
    observacoes_contribuinte`),
};

export const PROTOCOL_FIELDS =
  names(`versao ambiente versao_aplicativo chave_nfe data_recebimento numero_protocolo
  digest_value status motivo`);

/** Summary fields of the provider's list; the rest of the top level is document data. */
export const SUMMARY_FIELDS = new Set(
  names(`nome_emitente documento_emitente cnpj_destinatario cpf_destinatario chave_nfe valor_total data_emissao
    situacao manifestacao_destinatario nfe_completa tipo_nfe versao digest_value numero_carta_correcao
    carta_correcao data_carta_correcao data_cancelamento justificativa_cancelamento requisicao_nota_fiscal
    protocolo_nota_fiscal`),
);
