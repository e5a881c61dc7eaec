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
  const marked = markNumbers(text);
  if (marked === null)
    return JSON.parse(text, reviver as (key: string, value: unknown) => unknown) as ProviderValue;
  return unmark(JSON.parse(marked));
}

// The same result, faster: a reviver makes JSON.parse about five times slower (V8 calls it for
// every value), which a 1 MiB document paid on every detail. Each number outside strings is
// rewritten as the string "\u0001<its text>", the text is parsed without a reviver and those
// strings become RawNumbers again. JSON can spell a string starting with U+0001 only with that
// escape: a body holding one, or a number this grammar does not take, is parsed the slow way.
const MARK = 1;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const inNumber = (c: number) =>
  (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;

function markNumbers(text: string): string | null {
  let marked = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      if (text.charCodeAt(i + 1) === 0x5c && text.startsWith('u0001', i + 2)) return null;
      i = stringEnd(text, i);
      if (i === -1) return null;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && inNumber(text.charCodeAt(end))) end++;
      const number = text.slice(i, end);
      if (!NUMBER.test(number)) return null;
      marked += `${text.slice(copied, i)}"\\u0001${number}"`;
      i = copied = end;
    } else i++;
  }
  return marked + text.slice(copied);
}

/** The index after the quote closing the string that opens at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
  }
  return -1;
}

function unmark(value: unknown): ProviderValue {
  if (typeof value === 'string') return value.charCodeAt(0) === MARK ? new RawNumber(value.slice(1)) : value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unmark(value[i]);
  } else if (value !== null && typeof value === 'object') {
    const object = value as Record<string, ProviderValue>;
    for (const key of Object.keys(object)) {
      // A number where a property name belongs: the original text was not JSON.
      if (key.charCodeAt(0) === MARK) throw new SyntaxError(`Unexpected number ${key.slice(1)} in JSON`);
      const item = object[key];
      const converted = unmark(item);
      if (converted !== item) setOwn(object, key, converted);
    }
  }
  return value as ProviderValue;
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
