// Parses a fiscal provider body keeping every JSON number's source text (10.50 or 12.3456789012
// sent where strings are expected; a double would make them 10.5 or round them): the reviver's
// `source` gives that text, JSON.rawJSON keeps it, JSON.stringify writes it back unchanged.

declare const brand: unique symbol;
/** A number as the provider wrote it (`JSON.rawJSON`); `brand` is for the type checker only. */
export type RawNumber = { readonly rawJSON: string; readonly brand: typeof brand };
export type ProviderValue = string | boolean | null | RawNumber | ProviderValue[] | ProviderObject;
export type ProviderObject = { [key: string]: ProviderValue };

type JsonWithRaw = {
  rawJSON(text: string): RawNumber;
  isRawJSON(value: unknown): value is RawNumber;
  parse(
    text: string,
    reviver: (key: string, value: unknown, context: { source?: string }) => unknown,
  ): unknown;
};
const Json = JSON as unknown as JsonWithRaw;

/** `JSON.rawJSON`: serialises as the given text, unchanged. */
export const rawJSON = (text: string): RawNumber => Json.rawJSON(text);
export const isRawNumber = (value: unknown): value is RawNumber => Json.isRawJSON(value);

const keepNumberText = (_key: string, value: unknown, context: { source?: string }) =>
  typeof value === 'number' ? Json.rawJSON(context.source as string) : value;

/** Throws a SyntaxError on invalid JSON, like `JSON.parse`; a leading byte-order mark is ignored. */
export function parseProviderJson(body: string | Uint8Array): ProviderValue {
  let text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return Json.parse(text, keepNumberText) as ProviderValue;
}

export const isProviderObject = (value: unknown): value is ProviderObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !isRawNumber(value);

/**
 * Contract 2.8, "string or null, kept in the provider's original format": strings as they are,
 * numbers as their source text (12.3 -> "12.3", 10.50 -> "10.50"), booleans as "true"/"false",
 * null as null; arrays and objects keep their elements, converted the same way at any depth.
 */
export function providerText(value: ProviderValue): ProviderValue {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'boolean') return String(value);
  if (isRawNumber(value)) return value.rawJSON;
  if (Array.isArray(value)) return value.map(providerText);
  const text: ProviderObject = {};
  for (const [key, item] of Object.entries(value)) setOwn(text, key, providerText(item));
  return text;
}

/** Assigns a provider-named key; a JSON key `__proto__` must stay data, not a prototype. */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
