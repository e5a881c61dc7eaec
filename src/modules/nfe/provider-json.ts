// Parses a fiscal provider body keeping every JSON number's source text: the provider sends
// decimals such as 10.50 or 12.3456789012 as numbers where strings are expected, and a double
// would turn them into 10.5 or round them. Node 24's JSON.parse gives the reviver that text.

/** A JSON number as the provider wrote it; `JSON.stringify` writes the same text back. */
export class RawNumber {
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  toJSON(): unknown {
    return rawJSON(this.text);
  }
}

export type ProviderValue = string | boolean | null | RawNumber | ProviderValue[] | ProviderObject;
export type ProviderObject = { [key: string]: ProviderValue };

type ReviverContext = { source?: string };
type JsonWithRaw = { rawJSON(text: string): unknown };

/** `JSON.rawJSON` (V8 >= 11.4): serialises as the given text, unchanged. */
export const rawJSON = (text: string): unknown => (JSON as unknown as JsonWithRaw).rawJSON(text);

const reviver = (_key: string, value: unknown, context?: ReviverContext): unknown =>
  typeof value === 'number' ? new RawNumber(context?.source ?? String(value)) : value;

/** Throws a SyntaxError on invalid JSON, like `JSON.parse`. */
export function parseProviderJson(body: string | Uint8Array): ProviderValue {
  let text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown) as ProviderValue;
}

export const isProviderObject = (value: unknown): value is ProviderObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof RawNumber);

/** The provider's text of a scalar: strings as they are, numbers in their source form. */
export function providerText(value: ProviderValue): string | null {
  if (value === null || typeof value === 'string') return value;
  if (value instanceof RawNumber) return value.text;
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Deep copy where numbers and booleans become their source text (the detail's "string or null"). */
export function toTextValues(value: ProviderValue): ProviderValue {
  if (value instanceof RawNumber) return value.text;
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(toTextValues);
  if (isProviderObject(value)) return mapObject(value, toTextValues);
  return value;
}

/**
 * Deep copy with the original JSON types, for `additional_fields`: a number becomes a JS number
 * when the double prints back to the same text; otherwise (10.50, 1e400, 20+ digits) a
 * `JSON.rawJSON` value, so the serialised response still carries the provider's exact number.
 */
export function toJsonValues(value: ProviderValue): unknown {
  if (value instanceof RawNumber) {
    const number = Number(value.text);
    return String(number) === value.text ? number : rawJSON(value.text);
  }
  if (Array.isArray(value)) return value.map(toJsonValues);
  if (isProviderObject(value)) return mapObject(value, toJsonValues);
  return value;
}

function mapObject<T>(source: ProviderObject, convert: (value: ProviderValue) => T): Record<string, T> {
  const target: Record<string, T> = {};
  for (const [key, item] of Object.entries(source)) setOwn(target, key, convert(item));
  return target;
}

/** Assigns a provider-named key; a JSON key `__proto__` must stay data, not a prototype. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
