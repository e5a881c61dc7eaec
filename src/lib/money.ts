// Money is numeric(12,2) in the database, a string with two decimals on the wire and integer
// cents in arithmetic: never a float sum.

/** The largest amount numeric(12,2) holds: 9999999999.99. */
export const MAX_MONEY = 9999999999.99;

const AMOUNT = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

function centsOf(match: RegExpExecArray): number {
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '0').padEnd(2, '0'));
  return match[1] === '-' ? -cents : cents;
}

/** "42.90" -> 4290. Throws on anything that is not a plain amount with at most two decimals. */
export function toCents(value: string): number {
  const match = AMOUNT.exec(value);
  if (!match) throw new TypeError(`not a money amount: ${JSON.stringify(value)}`);
  return centsOf(match);
}

/** 4290 -> "42.90". */
export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/**
 * Cents of a JSON number, or null when the number has more than two decimals. The check reads the
 * number's shortest decimal form (String(n)), so 1.005 and 0.1 + 0.2 are rejected, 12.5 is 1250,
 * and exponent forms (1e-7, 1e+21) never pass.
 */
export function numberToCents(value: number): number | null {
  if (!Number.isFinite(value)) return null;
  const match = AMOUNT.exec(String(value));
  return match ? centsOf(match) : null;
}
