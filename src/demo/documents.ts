// Brazilian document numbers with valid check digits: CNPJ and the 44-digit NF-e access key.

function mod11(digits: string, weights: number[]): number {
  const sum = [...digits].reduce((acc, d, i) => acc + Number(d) * weights[i], 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** A CNPJ from its first 12 digits (8 of the company, 4 of the branch). */
export function cnpj(base12: string): string {
  const first = mod11(base12, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const second = mod11(`${base12}${first}`, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return `${base12}${first}${second}`;
}

type AccessKeyParts = {
  stateCode: string; // cUF, 2 digits (35 = SP, 13 = AM)
  issuedAt: string; // ISO instant: gives AAMM
  issuerCnpj: string;
  series: number;
  number: number;
  code: string; // cNF, 8 digits
};

/** cUF AAMM CNPJ mod(55) serie nNF tpEmis cNF, then the mod-11 check digit (weights 2..9 from the right). */
export function accessKey(parts: AccessKeyParts): string {
  const yymm = parts.issuedAt.slice(2, 4) + parts.issuedAt.slice(5, 7);
  const body = [
    parts.stateCode,
    yymm,
    parts.issuerCnpj,
    '55',
    String(parts.series).padStart(3, '0'),
    String(parts.number).padStart(9, '0'),
    '1',
    parts.code,
  ].join('');
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[body.length - 1 - i]) * (2 + (i % 8));
  const rest = sum % 11;
  return `${body}${rest < 2 ? 0 : 11 - rest}`;
}
