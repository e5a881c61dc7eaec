// The 32 attributes of the fiscal projection (contract 2.3), in contract order. They are
// columns of `products` with these exact names, all text: codes keep their leading zeros.
/**
 * The most characters a fiscal attribute's value holds, as a name or a description: its codes and
 * rates are a few characters, and a bound keeps 100 products' 32 attributes from making an answer
 * of hundreds of megabytes.
 */
export const FISCAL_VALUE_MAX = 255;

/**
 * Contract 2.3 serializes `fcp_percentual` as a numeric string, so a write (the API's or an
 * import's) takes only plain decimal text for it; the other attributes keep what is registered.
 */
export const FCP_PERCENTUAL_PATTERN = '^-?\\d+(\\.\\d+)?$';

export const FISCAL_COLUMNS = [
  'ncm',
  'cfop',
  'csosn',
  'cst',
  'cest',
  'icms_origem',
  'aliquota',
  'base_calculo',
  'pis',
  'cofins',
  'pis_aliquota',
  'cofins_aliquota',
  'icms_modalidade_base_calculo',
  'icms_aliquota',
  'icms_valor',
  'cbenef',
  'fcp_percentual',
  'icms_base_calculo_retido_st',
  'icms_aliquota_final',
  'icms_valor_retido_st',
  'icms_valor_substituto',
  'icms_reducao_base_calculo',
  'icms_motivo_desoneracao',
  'icms_valor_desonerado',
  'icms_aliquota_credito_simples',
  'icms_valor_credito_simples',
  'ibs_cbs_situacao_tributaria',
  'ibs_cbs_classificacao_tributaria',
  'icms_modalidade_base_calculo_st',
  'icms_margem_valor_adicionado_st',
  'icms_reducao_base_calculo_st',
  'icms_aliquota_st',
] as const;

export type FiscalColumn = (typeof FISCAL_COLUMNS)[number];
export type FiscalValues = { [K in FiscalColumn]: string | null };
