// Value checkers of the import format. Each returns the value to store or throws a FieldProblem.
import { unstorable } from '../db/storable-text.ts';
import { FieldProblem } from './issues.ts';

export type Check<T> = (value: unknown) => T;

const MAX_INT = 2147483647;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2}))$/;

export const integer =
  (min = 0, max = MAX_INT): Check<number> =>
  (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      throw new FieldProblem(`must be a whole number from ${min} to ${max}`);
    }
    return value;
  };

export const id = integer(1);

export const bool: Check<boolean> = (value) => {
  if (typeof value !== 'boolean') throw new FieldProblem('must be true or false');
  return value;
};

/** Only text PostgreSQL can store (text and jsonb): no NUL, no lone UTF-16 surrogate. */
export function storable(value: string, path = ''): string {
  const problem = unstorable(value);
  if (problem) throw new FieldProblem(problem, path);
  return value;
}

export const text =
  (options: { max?: number; trim?: boolean; nonEmpty?: boolean } = {}): Check<string> =>
  (value) => {
    if (typeof value !== 'string') throw new FieldProblem('must be a string');
    const result = storable(options.trim ? value.trim() : value);
    if (options.nonEmpty && result.length === 0) throw new FieldProblem('must not be empty');
    if (options.max !== undefined && characters(result, options.max) > options.max) {
      throw new FieldProblem(`must be at most ${options.max} characters`);
    }
    return result;
  };

/**
 * The characters (Unicode code points, as the API and PostgreSQL's char_length count them) of
 * `value`, counted only as far as `max` + 1: a pizza emoji is one character, two UTF-16 units.
 */
export function characters(value: string, max: number): number {
  // Each code point is one or two UTF-16 units.
  if (value.length <= max) return value.length;
  if (value.length > 2 * max + 1) return max + 1;
  let count = 0;
  for (const _ of value) if (++count > max) break;
  return count;
}

export const oneOf =
  <T extends string>(values: readonly T[]): Check<T> =>
  (value) => {
    if (typeof value !== 'string' || !values.includes(value as T)) {
      throw new FieldProblem(`must be one of ${values.join(', ')}`);
    }
    return value as T;
  };

function realDate(year: number, month: number, day: number): boolean {
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

export const date: Check<string> = (value) => {
  const m = typeof value === 'string' ? DATE.exec(value) : null;
  if (!m || !realDate(Number(m[1]), Number(m[2]), Number(m[3]))) {
    throw new FieldProblem('must be a calendar date YYYY-MM-DD');
  }
  return value as string;
};

/**
 * 9999-12-31T23:59:59.999Z, the first instant refused: Date.parse cuts a fraction that PostgreSQL
 * rounds (.9995 becomes the year 10000), so this last millisecond is given up to be sure.
 */
const LAST_MILLISECOND = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** ISO 8601 with a time zone (`Z` or an offset): an instant must not depend on where it is read. */
export const instant: Check<string> = (value) => {
  const m = typeof value === 'string' ? INSTANT.exec(value) : null;
  const ok =
    m &&
    realDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
    Number(m[4]) < 24 &&
    Number(m[5]) < 60 &&
    Number(m[6] ?? 0) < 60 &&
    // PostgreSQL reads offsets up to 15:59 ("time zone displacement out of range" beyond).
    Number(m[8] ?? 0) <= 15 &&
    Number(m[9] ?? 0) < 60;
  if (!ok) throw new FieldProblem('must be an ISO 8601 date-time with Z or an offset');
  // Stored to the millisecond (rounded), read back in UTC: 9999-12-31T23:00:00-05:00 would be the
  // year 10000, which the API cannot write as an ISO 8601 instant (the NF-e list answers 500).
  if (Date.parse(value as string) >= LAST_MILLISECOND)
    throw new FieldProblem('must be before 10000-01-01 in UTC');
  return value as string;
};

export const arrayOf =
  <T>(check: Check<T>, options: { unique?: boolean; nonEmpty?: boolean } = {}): Check<T[]> =>
  (value) => {
    if (!Array.isArray(value)) throw new FieldProblem('must be an array');
    if (options.nonEmpty && value.length === 0) throw new FieldProblem('must not be empty');
    const result = value.map((item, i) => {
      try {
        return check(item);
      } catch (err) {
        if (err instanceof FieldProblem) throw new FieldProblem(err.message, `[${i}]${err.path}`);
        throw err;
      }
    });
    if (options.unique) {
      const seen = new Set<unknown>();
      result.forEach((item, i) => {
        if (seen.has(item)) throw new FieldProblem(`repeats ${JSON.stringify(item)}`, `[${i}]`);
        seen.add(item);
      });
    }
    return result;
  };

/**
 * Arrays and objects a JSON value may nest: the write's JSON.stringify (recursive) overflows the
 * stack at a few thousand levels, and the value is read back and rendered the same way.
 */
const MAX_JSON_DEPTH = 100;

/** Anything JSON can hold (stored as jsonb) whose keys and strings jsonb can store. */
export const json: Check<unknown> = (value) => {
  // Walked without recursion: a deeply nested value must not overflow the stack here either.
  const pending: [unknown, string, number][] = [[value, '', 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, path, depth] = next;
    if (typeof item === 'string') storable(item, path);
    else if (item !== null && typeof item === 'object' && depth === MAX_JSON_DEPTH) {
      throw new FieldProblem(`must not nest arrays and objects more than ${MAX_JSON_DEPTH} deep`, path);
    } else if (Array.isArray(item)) {
      item.forEach((v, i) => {
        pending.push([v, `${path}[${i}]`, depth + 1]);
      });
    } else if (item !== null && typeof item === 'object') {
      for (const [key, v] of Object.entries(item)) {
        const at = `${path}[${JSON.stringify(key)}]`;
        storable(key, at);
        pending.push([v, at, depth + 1]);
      }
    }
  }
  return value;
};

export const timeZone: Check<string> = (value) => {
  if (typeof value === 'string' && value) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return value;
    } catch {}
  }
  throw new FieldProblem('must be an IANA time zone such as America/Sao_Paulo');
};
