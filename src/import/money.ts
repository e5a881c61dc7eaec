// Money of the import format: a JSON number or a decimal string with at most two decimals,
// within numeric(12,2) (or a wider column's precision). Sums are done in integer cents.
import { formatCents, toCents } from '../lib/money.ts';
import type { Check } from './fields.ts';
import { FieldProblem } from './issues.ts';

const DECIMAL = /^-?(\d+)(?:\.\d{1,2})?$/;

/** `precision` is the column's total digits: 12 for numeric(12,2). */
export const money =
  (options: { min?: number; precision?: number } = {}): Check<string> =>
  (value) => {
    // A number's shortest decimal form is what the file said: 1.005 stays 1.005 and is rejected.
    const source = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
    const m = typeof source === 'string' ? DECIMAL.exec(source) : null;
    if (!m) throw new FieldProblem('must be a number or a decimal string with at most 2 decimals');
    const digits = (options.precision ?? 12) - 2;
    if (m[1].replace(/^0+(?=\d)/, '').length > digits) {
      throw new FieldProblem(`must be less than 1${'0'.repeat(digits)} in absolute value`);
    }
    const cents = toCents(source as string);
    if (options.min !== undefined && cents < options.min * 100) {
      throw new FieldProblem(`must be at least ${options.min}`);
    }
    return formatCents(cents);
  };
