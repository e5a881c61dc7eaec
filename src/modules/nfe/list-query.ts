// The rules of the NF-e list query the schema cannot express: a real calendar instant, the
// period order and its 92-day limit. Everything wrong is reported at once.
// The period is resolved to whole seconds and both ends are included: `end_date` 13:00:00
// covers 13:00:00.999.
import { errors, type FieldError } from '../../http/errors.ts';
import type { NfeListQuerystring } from './nfe-schema.ts';

const MAX_PERIOD_DAYS = 92;
const SECOND_MS = 1000;
const MAX_PERIOD_MS = MAX_PERIOD_DAYS * 86_400_000;

export type NfeListFilter = {
  start: Date;
  /** The last millisecond of end_date's second (instants are stored to the millisecond). */
  endInclusive: Date;
  pending: boolean;
  brandId?: number;
};

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))?$/;

/** Milliseconds of the instant truncated to its second, or undefined when it is no real date-time. */
function parseInstant(text: string): number | undefined {
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
  const offsetHours = Number(match[9] ?? 0);
  const offsetMinutes = Number(match[10] ?? 0);
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return;
  if (offsetHours > 23 || offsetMinutes > 59) return;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  if (date.getUTCDate() !== day) return undefined;
  date.setUTCHours(hour, minute, second, 0);
  const offset = (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return date.getTime() - offset;
}

// Instants are bound as Date values: keep them within four-digit years in UTC.
const EARLIEST = Date.UTC(1000, 0, 1);
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

export function parseNfeListQuery(query: NfeListQuerystring): NfeListFilter {
  const fields: FieldError[] = [];
  const instant = (name: 'start_date' | 'end_date') => {
    const value = parseInstant(query[name]);
    if (value === undefined) fields.push({ field: name, message: 'must be a real calendar date-time' });
    else if (value < EARLIEST || value > LATEST) {
      fields.push({ field: name, message: 'must be within the years 1000 to 9999 (UTC)' });
    } else return value;
  };
  const start = instant('start_date');
  const end = instant('end_date');
  if (start !== undefined && end !== undefined) {
    if (end < start) fields.push({ field: 'end_date', message: 'must not be before start_date' });
    else if (end - start > MAX_PERIOD_MS) {
      fields.push({ field: 'end_date', message: `must be at most ${MAX_PERIOD_DAYS} days after start_date` });
    }
  }
  if (fields.length > 0 || start === undefined || end === undefined) {
    const summary = fields.map((f) => `${f.field} ${f.message}`).join('; ');
    throw errors.invalidQuery(`Invalid query: ${summary}.`, fields);
  }
  return {
    start: new Date(start),
    endInclusive: new Date(end + SECOND_MS - 1),
    pending: query.pendente === true,
    brandId: query.brand_id,
  };
}
