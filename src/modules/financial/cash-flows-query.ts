// The rules of the cash-flow query the schema cannot express: the period order and its 92-day
// limit. Everything wrong is reported at once, field by field.
import { errors, type FieldError } from '../../http/errors.ts';
import type { CashFlowsQuerystring } from './cash-flows-schema.ts';

const MAX_PERIOD_DAYS = 92;
const DAY_MS = 86_400_000;

export type DateType = 'due_date' | 'competence_date';

export type CashFlowFilter = {
  startDate: string;
  endDate: string;
  dateType: DateType;
  offset: number;
  paid?: boolean;
  isEarning?: boolean;
  providerId?: number;
  bankAccountId?: number;
  paymentMethodId?: number;
  categorySubcategoryId?: number;
};

const ID_FIELDS = {
  provider_id: 'providerId',
  bank_account_id: 'bankAccountId',
  payment_method_id: 'paymentMethodId',
  category_subcategory_id: 'categorySubcategoryId',
} as const;

function dayNumber(date: string): number {
  // Date.UTC reads a year from 0 to 99 as 1900 + year: setUTCFullYear takes the year as it is.
  const day = new Date(0);
  day.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return day.getTime() / DAY_MS;
}

export function parseCashFlowQuery(query: CashFlowsQuerystring): CashFlowFilter {
  const fields: FieldError[] = [];
  const filter: CashFlowFilter = {
    startDate: query.start_date,
    endDate: query.end_date,
    dateType: query.date_type ?? 'due_date',
    offset: query.offset ?? 0,
    paid: query.paid,
    isEarning: query.is_earning,
  };
  for (const [name, key] of Object.entries(ID_FIELDS) as [keyof typeof ID_FIELDS, keyof CashFlowFilter][]) {
    if (query[name] !== undefined) Object.assign(filter, { [key]: query[name] });
  }
  for (const name of ['start_date', 'end_date'] as const) {
    // PostgreSQL has no year 0 (1 BC); the schema's calendar check accepts it.
    if (query[name].startsWith('0000')) fields.push({ field: name, message: 'must be a year from 0001' });
  }
  const days = dayNumber(filter.endDate) - dayNumber(filter.startDate) + 1;
  if (days < 1) fields.push({ field: 'end_date', message: 'must not be before start_date' });
  else if (days > MAX_PERIOD_DAYS) {
    fields.push({
      field: 'end_date',
      message: `must be at most ${MAX_PERIOD_DAYS} calendar days from start_date, both included (got ${days})`,
    });
  }
  if (fields.length > 0) {
    const summary = fields.map((f) => `${f.field} ${f.message}`).join('; ');
    throw errors.invalidQuery(`Invalid query: ${summary}.`, fields);
  }
  return filter;
}
