// Reads one record of the file against a field spec: unknown fields are rejected, absent
// fields take their default, null only where the field is nullable.
import type { Check } from './fields.ts';
import { FieldProblem, type Issues } from './issues.ts';

export type Field = { check: Check<unknown>; required?: boolean; nullable?: boolean; fallback?: unknown };
export type Spec = Record<string, Field>;

/** Required, not null. */
export const required = (check: Check<unknown>): Field => ({ check, required: true });
/** Optional, not null; absent takes `fallback`. */
export const optional = (check: Check<unknown>, fallback: unknown): Field => ({ check, fallback });
/** Optional and nullable; absent is null unless another fallback is given. */
export const nullable = (check: Check<unknown>, fallback: unknown = null): Field => ({
  check,
  nullable: true,
  fallback,
});

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readField(field: Field, value: unknown): unknown {
  if (value === undefined) {
    if (field.required) throw new FieldProblem('is required');
    return field.fallback;
  }
  if (value === null) {
    if (field.nullable) return null;
    throw new FieldProblem('must not be null');
  }
  return field.check(value);
}

/** The checked record, or null when it has a problem (already added to `issues`). */
export function readRecord(
  raw: unknown,
  at: string,
  spec: Spec,
  issues: Issues,
): Record<string, unknown> | null {
  if (!isObject(raw)) {
    issues.add(at, 'must be an object');
    return null;
  }
  const before = issues.count;
  for (const key of Object.keys(raw))
    if (!Object.hasOwn(spec, key)) issues.add(`${at}.${key}`, 'unknown field');
  const record: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(spec)) {
    try {
      record[name] = readField(field, raw[name]);
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      issues.add(`${at}.${name}${err.path}`, err.message);
    }
  }
  return issues.count === before ? record : null;
}

/** A checker for a nested object (a schedule window, a combo, the fiscal object). */
export function nested(spec: Spec): Check<Record<string, unknown>> {
  return (value) => {
    if (!isObject(value)) throw new FieldProblem('must be an object');
    for (const key of Object.keys(value))
      if (!Object.hasOwn(spec, key)) throw new FieldProblem('unknown field', `.${key}`);
    const record: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(spec)) {
      try {
        record[name] = readField(field, value[name]);
      } catch (err) {
        if (err instanceof FieldProblem) throw new FieldProblem(err.message, `.${name}${err.path}`);
        throw err;
      }
    }
    return record;
  };
}
