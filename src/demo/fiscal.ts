// Fiscal registrations of the demo products (contract 2.3): codes as text with their leading
// zeros. Cantina Bella is in the simplified regime (CSOSN); Sabor do Norte in the normal one (CST).
export type Fiscal = Record<string, string | null>;

const simples = { cfop: '5102', csosn: '102', icms_origem: '0', pis: '49', cofins: '49' };

export const FISCAL: Record<string, Fiscal> = {
  prepared: { ...simples, ncm: '21069090' },
  pizza: { ...simples, ncm: '19059090', cest: '1700200' },
  pasta: { ...simples, ncm: '19023000' },
  meat: { ...simples, ncm: '02013000' },
  fish: { ...simples, ncm: '03028990' },
  drink: { ...simples, ncm: '22021000', cest: '0300700', cfop: '5405', csosn: '500' },
  water: { ...simples, ncm: '22011000', cest: '0300400', cfop: '5405', csosn: '500' },
  beer: { ...simples, ncm: '22030000', cest: '0302100', cfop: '5405', csosn: '500' },
  dessert: { ...simples, ncm: '18069000' },
  acai: { ...simples, ncm: '20089900', icms_origem: '0', aliquota: '0,00' },
  packaging: { ...simples, ncm: '48191000', cfop: '5949' },
  normalRegime: {
    csosn: null,
    cst: '00',
    icms_modalidade_base_calculo: '3',
    icms_aliquota: '20.00',
    fcp_percentual: '2',
    pis: '01',
    cofins: '01',
    pis_aliquota: '1.65',
    cofins_aliquota: '7.60',
    ibs_cbs_situacao_tributaria: '000',
    ibs_cbs_classificacao_tributaria: '000001',
  },
};
