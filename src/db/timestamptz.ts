// timestamptz values as `pg` hands them over (DateStyle ISO), parsed without regular expressions.
// pg-types parses them with postgres-date: three regular expressions, a split and about twenty
// small strings and arrays per value. A bulk edit of 100 products reads 300 of them, as many
// objects as the rows' own fields. The shape PostgreSQL writes, `2026-11-22 10:11:12.345-03`
// (a fraction of 1-6 digits and an offset of hours, minutes or seconds optional), is read here by
// character codes with the same arithmetic; anything else (another year length, BC, infinity,
// another DateStyle) goes to postgres-date (pg's own parser, handed in), so the result is always
// the one it gives (test/db/timestamptz.test.ts compares them).

const ZERO = 48;
const PLUS = 43;
const MINUS = 45;
const COLON = 58;
const DOT = 46;

/** The digit at `i`, or -1. */
function digit(text: string, i: number): number {
  const code = text.charCodeAt(i) - ZERO;
  return code >= 0 && code <= 9 ? code : -1;
}

/** Two digits at `i` as a number, or -1. */
function two(text: string, i: number): number {
  const high = digit(text, i);
  const low = digit(text, i + 1);
  return high < 0 || low < 0 ? -1 : high * 10 + low;
}

/** `YYYY-MM-DD HH:MM:SS` from `0`: the time in ms of those fields as UTC (negative before 1970), or NaN. */
function fields(text: string): number {
  const century = two(text, 0);
  const years = two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  const hour = two(text, 11);
  const minute = two(text, 14);
  const second = two(text, 17);
  if ((century | years | month | day | hour | minute | second) < 0) return Number.NaN;
  if (text.charCodeAt(4) !== MINUS || text.charCodeAt(7) !== MINUS || text.charCodeAt(10) !== 32)
    return Number.NaN;
  if (text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON) return Number.NaN;
  const year = century * 100 + years;
  // Date.UTC reads years 0-99 as 1900-1999: postgres-date corrects that its own way.
  if (year < 100) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

type Parse = (text: string) => Date;

/** A timestamptz parser that gives `general`'s result, the common shape without its regular expressions. */
export const timestamptzParser =
  (general: Parse): Parse =>
  (text) =>
    common(text) ?? general(text);

/** The common shape's Date, or null for the general parser. */
function common(text: string): Date | null {
  const base = text.length >= 22 ? fields(text) : Number.NaN;
  if (Number.isNaN(base)) return null;
  let at = 19;
  let micros = 0;
  if (text.charCodeAt(at) === DOT) {
    // Up to six digits, read as microseconds; postgres-date's 1000 * parseFloat('.ddd') truncated
    // by Date.UTC gives the same milliseconds (the test checks all 10^6 six-digit fractions).
    let scale = 100_000;
    at += 1;
    for (let d = digit(text, at); d >= 0 && scale >= 1; d = digit(text, ++at)) {
      micros += d * scale;
      scale /= 10;
    }
    if (at === 20 || digit(text, at) >= 0) return null;
  }
  const sign = text.charCodeAt(at);
  const hours = two(text, at + 1);
  if ((sign !== PLUS && sign !== MINUS) || hours < 0) return null;
  let offset = hours * 3600;
  at += 3;
  // Then :MM and :SS, each optional.
  for (let unit = 60; unit >= 1 && at < text.length; unit /= 60, at += 3) {
    const value = text.charCodeAt(at) === COLON ? two(text, at + 1) : -1;
    if (value < 0) return null;
    offset += value * unit;
  }
  if (at !== text.length) return null;
  return new Date(base + Math.trunc(micros / 1000) - (sign === MINUS ? -offset : offset) * 1000);
}
