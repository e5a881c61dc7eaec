// Stored instants are read as PostgreSQL's text of the UTC timestamp ('2026-01-10 13:00:00.5'),
// not as Dates: parsing a Date per value and printing it back cost a tenth of the list's CPU.
// The plain text of years 1-9999 becomes ISO 8601 by moving characters, exactly as
// Date#toISOString writes it. Any other text (BC, years past 9999, infinity) goes through the
// driver's own timestamptz parser, so it gives the Date, the value or the error it always gave.
import pg from 'pg';

const TIMESTAMPTZ_OID = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID) as (text: string) => Date | number | null;

/** 'YYYY-MM-DD HH:MM:SS' with no decimals or one to three (trailing zeros are not written). */
function isPlain(text: string): boolean {
  const length = text.length;
  return (
    (length === 19 || (length >= 21 && length <= 23 && text.charCodeAt(19) === 0x2e)) &&
    text.charCodeAt(4) === 0x2d &&
    text.charCodeAt(10) === 0x20
  );
}

/** What the driver returns for the column read as timestamptz: a Date, ±Infinity or null. */
export function instantOf(text: string): Date | number | null {
  if (text === 'infinity' || text === '-infinity') return parseTimestamptz(text);
  if (text.endsWith(' BC')) return parseTimestamptz(`${text.slice(0, -3)}+00 BC`);
  return parseTimestamptz(`${text}+00`);
}

/** True when the instant is a Date with a time (what every note's issue date must be). */
export function isRealInstant(text: string): boolean {
  if (isPlain(text)) return true;
  const value = instantOf(text);
  return value instanceof Date && !Number.isNaN(value.getTime());
}

/** '2026-01-10 13:00:00.5' -> '2026-01-10T13:00:00.500Z', as `instantOf(text).toISOString()`. */
export function isoOf(text: string): string | null {
  if (isPlain(text)) {
    const millis = text.length === 19 ? '000' : text.slice(20).padEnd(3, '0');
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${millis}Z`;
  }
  const value = instantOf(text);
  // ±Infinity has no toISOString: the TypeError (a 500) it always raised.
  return value === null ? null : (value as Date).toISOString();
}

/**
 * The response schema declares nullable instants as date-time strings: the ISO text of a year
 * outside 0-9999 ('+010000-...') is refused with a TypeError (500), as the schema serialiser did
 * while it checked their format.
 */
export function assertDateTime(iso: string | null, field: string): void {
  if (iso === null) return;
  const first = iso.charCodeAt(0);
  if (first < 0x30 || first > 0x39)
    throw new TypeError(`The value of '${field}' does not match schema definition.`);
}
