// A JSON scanner over the provider's bytes that copies values as the detail writes them, without
// building them: "text" copies turn numbers and booleans into strings (the groups' fields), "json"
// copies keep them (additional_fields). Numbers are copied as written, so no decimal ever passes
// through a double. It only takes what it is sure JSON.parse + the mapping would give the same
// bytes for; anything else (invalid JSON, a duplicate, numeric or escaped key, __proto__, deep
// nesting, a summary field of the wrong type) throws OFF_PATH and the caller parses the old way.
import { ascii, ByteWriter, viewOf } from '../../lib/byte-writer.ts';
import {
  BACKSLASH,
  CLOSE_ARRAY,
  CLOSE_OBJECT,
  COLON,
  COMMA,
  OPEN_ARRAY,
  OPEN_OBJECT,
  QUOTE,
} from './json-chars.ts';
import { type ProviderValue, RawNumber } from './provider-json.ts';

export const OFF_PATH = new Error('provider body outside the fast path');
export const offPath = (): never => {
  throw OFF_PATH;
};

const MAX_DEPTH = 64;
const MAX_KEYS = 512;

const isDigit = (c: number) => c >= 0x30 && c <= 0x39;

const TRUE = ascii('true');
const FALSE = ascii('false');
export const NULL = ascii('null');
const QUOTED_TRUE = ascii('"true"');
const QUOTED_FALSE = ascii('"false"');
const PROTO = ascii('__proto__');

// The scan in progress (synchronous, so one at a time): the body and the position in it.
let src: Buffer = Buffer.alloc(0);
let view: DataView = new DataView(new ArrayBuffer(0));
export let at = 0;
let end = 0;
let escaped = false;
/** The last key read: its text between the quotes and the hash `keyHash` computes. */
export let keyStart = 0;
export let keyEnd = 0;
export let keyHash = 0;
// Keys of the objects open on the way to `at` (hash, start, end), to refuse duplicates.
const keys = new Int32Array(MAX_DEPTH * MAX_KEYS * 3);
export let keyTop = 0;

export function beginScan(body: Buffer): void {
  src = body;
  view = viewOf(body);
  at = 0;
  end = body.length;
  keyTop = 0;
}

export function endScan(): void {
  src = Buffer.alloc(0);
  view = new DataView(new ArrayBuffer(0));
}

export const source = (): Buffer => src;
/** Moves the scan to `position` (item-shape.ts reads an item on its own, then hands back). */
export function seek(position: number): void {
  at = position;
}
/** The body as a view, for ByteWriter.copyView. */
export const sourceView = (): DataView => view;
export const peek = (): number => src[at];
export const atEnd = (): boolean => at >= end;

export function skipSpace(): void {
  let c = src[at];
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = src[++at];
}

/** Steps over `byte` (and the spaces after it), or leaves the fast path. */
export function expect(byte: number): void {
  if (src[at] !== byte) offPath();
  at++;
  skipSpace();
}

/** On `open` (an object or array, spaces allowed inside): true when it is empty (and read). */
export function open(bracket: number, close: number): boolean {
  expect(bracket);
  if (src[at] !== close) return false;
  at++;
  return true;
}

/** After a member or an element: true on a comma (stepped over), false on `close`. */
export function next(close: number): boolean {
  let c = src[at];
  if (c <= 0x20) {
    skipSpace();
    c = src[at];
  }
  at++;
  if (c === COMMA) {
    if (src[at] <= 0x20) skipSpace();
    return true;
  }
  if (c !== close) offPath();
  return false;
}

/** The same hash `readKey` computes, for a name known in advance. */
export function hashOf(name: Uint8Array): number {
  let hash = 0;
  for (const c of name) hash = (Math.imul(hash, 31) + c) | 0;
  return hash;
}

export function keyIs(name: Uint8Array): boolean {
  if (keyEnd - keyStart !== name.length) return false;
  for (let i = 0; i < name.length; i++) if (src[keyStart + i] !== name[i]) return false;
  return true;
}

/** At a key's opening quote: reads it and the colon, and stops on its value. */
export function readKey(): void {
  const bytes = src;
  if (bytes[at] !== QUOTE) offPath();
  let i = at + 1;
  let hash = 0;
  const first = bytes[i];
  // A key that can be an array index is ordered first by JSON.parse: not followed here.
  if (first >= 0x30 && first <= 0x39) offPath();
  for (;;) {
    if (i >= end) offPath();
    const c = bytes[i];
    if (c === QUOTE) break;
    // Printable ASCII only: no escape to decode, nothing the schema's key pattern refuses.
    if (c < 0x20 || c > 0x7e || c === BACKSLASH) offPath();
    hash = (Math.imul(hash, 31) + c) | 0;
    i++;
  }
  keyStart = at + 1;
  keyEnd = i;
  keyHash = hash;
  if (keyIs(PROTO)) offPath();
  at = i + 1;
  skipSpace();
  expect(COLON);
}

/**
 * At a key's opening quote: when the key is `name` (a field name: plain ASCII), reads it and the
 * colon and returns true; otherwise moves nothing. Cheaper than readKey (no hash) when the
 * layout of the object is predictable, as the items of a document are.
 */
export function readKnownKey(name: DataView): boolean {
  const bytes = src;
  const start = at + 1;
  const length = name.byteLength;
  if (bytes[at] !== QUOTE || bytes[start + length] !== QUOTE) return false;
  // Four bytes at a time: the quote after the name is in the body, so every read is too.
  const body = view;
  let i = 0;
  for (; i + 4 <= length; i += 4)
    if (body.getUint32(start + i, true) !== name.getUint32(i, true)) return false;
  for (; i < length; i++) if (bytes[start + i] !== name.getUint8(i)) return false;
  keyStart = start;
  keyEnd = start + length;
  if (bytes[keyEnd + 1] === COLON && bytes[keyEnd + 2] > 0x20) at = keyEnd + 2;
  else {
    at = keyEnd + 1;
    skipSpace();
    expect(COLON);
  }
  return true;
}

/** How a named field's value is written (field-layout.ts): see readField. */
export const WHOLE = 0;
export const QUOTED = 1;
export const PLAIN = 2;
export const CONVERTED = 3;
/** Where the value readField read starts. */
export let valueStart = 0;

/**
 * Reads the value of a named field (toTextValues' form) and says how to write it: WHOLE, a string
 * or null right after its key, as `"key":value` from keyStart - 1 to `at`; PLAIN, the same with
 * spaces around the colon, the value alone; QUOTED, a number, its text in quotes; CONVERTED,
 * anything else, written to `scratch` in its text form.
 */
export function readField(scratch: ByteWriter, depth: number): number {
  const c = src[at];
  valueStart = at;
  if (c === QUOTE) {
    stringEnd();
    if (escaped) {
      scratch.text(JSON.stringify(decodeString(valueStart, at)));
      return CONVERTED;
    }
  } else if (c === 0x6e) literal(NULL);
  else if (c === 0x2d || isDigit(c)) {
    numberEnd();
    return QUOTED;
  } else {
    copyValue(scratch, true, depth);
    return CONVERTED;
  }
  return valueStart === keyEnd + 2 ? WHOLE : PLAIN;
}

/** Records the last key in the object whose keys start at `base`; a duplicate leaves the fast path. */
export function rememberKey(base: number): void {
  if (keyTop - base >= MAX_KEYS * 3 || keyTop + 3 > keys.length) offPath();
  for (let k = base; k < keyTop; k += 3) {
    if (keys[k] === keyHash && sameAsKey(keys[k + 1], keys[k + 2])) offPath();
  }
  keys[keyTop] = keyHash;
  keys[keyTop + 1] = keyStart;
  keys[keyTop + 2] = keyEnd;
  keyTop += 3;
}

export function forgetKeys(base: number): void {
  keyTop = base;
}

/** Whether bytes `start` to `stop` of the body are the last key read. */
export function sameAsKey(start: number, stop: number): boolean {
  if (stop - start !== keyEnd - keyStart) return false;
  for (let i = 0; i < stop - start; i++) if (src[start + i] !== src[keyStart + i]) return false;
  return true;
}

/** At a string's opening quote: moves past its closing quote; `escaped` says if it holds a backslash. */
function stringEnd(): void {
  const bytes = src;
  const last = end;
  let i = at + 1;
  let backslash = false;
  for (;;) {
    if (i >= last) offPath();
    const c = bytes[i];
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      backslash = true;
      i += 2;
    } else {
      if (c < 0x20) offPath();
      i++;
    }
  }
  escaped = backslash;
  at = i + 1;
}

/** Moves past a number written as JSON allows (-?(0|[1-9]d*)(.d+)?([eE][+-]?d+)?). */
function numberEnd(): void {
  at = numberEndAt(src, at);
  if (at < 0) offPath();
}

/** Where the number at `i` of `bytes` ends, or -1 when none is written there as JSON allows. */
export function numberEndAt(bytes: Uint8Array, i: number): number {
  if (bytes[i] === 0x2d) i++;
  const first = bytes[i];
  if (first === 0x30) i++;
  else if (first >= 0x31 && first <= 0x39) while (isDigit(bytes[++i]));
  else return -1;
  if (bytes[i] === 0x2e) {
    if (!isDigit(bytes[++i])) return -1;
    while (isDigit(bytes[++i]));
  }
  const exponent = bytes[i];
  if (exponent === 0x65 || exponent === 0x45) {
    const sign = bytes[++i];
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(bytes[i])) return -1;
    while (isDigit(bytes[++i]));
  }
  return i;
}

function literal(bytes: Uint8Array): void {
  for (let i = 0; i < bytes.length; i++) if (src[at + i] !== bytes[i]) offPath();
  at += bytes.length;
}

/** A string with escapes, as JSON.parse reads it (an invalid escape leaves the fast path). */
function decodeString(start: number, stop: number): string {
  try {
    return JSON.parse(src.toString('utf8', start, stop));
  } catch {
    return offPath();
  }
}

/**
 * Copies the value at `at` (no space before it) as JSON.stringify writes what the mapping made of
 * it: `asText` for toTextValues (numbers and booleans as strings), else toJsonValues.
 */
export function copyValue(out: ByteWriter, asText: boolean, depth: number): void {
  const c = src[at];
  if (c === QUOTE) {
    const start = at;
    stringEnd();
    if (escaped) out.text(JSON.stringify(decodeString(start, at)));
    else out.copyView(view, start, at);
  } else if (c === OPEN_OBJECT) copyObject(out, asText, depth + 1);
  else if (c === OPEN_ARRAY) copyArray(out, asText, depth + 1);
  else if (c === 0x74) {
    literal(TRUE);
    out.constant(asText ? QUOTED_TRUE : TRUE);
  } else if (c === 0x66) {
    literal(FALSE);
    out.constant(asText ? QUOTED_FALSE : FALSE);
  } else if (c === 0x6e) {
    literal(NULL);
    out.constant(NULL);
  } else {
    const start = at;
    numberEnd();
    if (asText) out.byte(QUOTE);
    out.copyView(view, start, at);
    if (asText) out.byte(QUOTE);
  }
}

function copyObject(out: ByteWriter, asText: boolean, depth: number): void {
  if (depth > MAX_DEPTH) offPath();
  at++;
  skipSpace();
  out.byte(OPEN_OBJECT);
  const base = keyTop;
  if (src[at] === CLOSE_OBJECT) at++;
  else {
    for (;;) {
      readKey();
      rememberKey(base);
      copyKey(out);
      copyValue(out, asText, depth);
      if (!next(CLOSE_OBJECT)) break;
      out.byte(COMMA);
    }
  }
  keyTop = base;
  out.byte(CLOSE_OBJECT);
}

function copyArray(out: ByteWriter, asText: boolean, depth: number): void {
  if (depth > MAX_DEPTH) offPath();
  at++;
  skipSpace();
  out.byte(OPEN_ARRAY);
  if (src[at] === CLOSE_ARRAY) at++;
  else {
    for (;;) {
      copyValue(out, asText, depth);
      if (!next(CLOSE_ARRAY)) break;
      out.byte(COMMA);
    }
  }
  out.byte(CLOSE_ARRAY);
}

const discarded = new ByteWriter();

/** Reads over a value that is not written (it must still be JSON the old parse takes). */
export function skipValue(depth: number): void {
  copyValue(discarded, false, depth);
  discarded.length = 0;
}

/** The last key read, with its quotes and a colon. */
export function copyKey(out: ByteWriter): void {
  out.copyView(view, keyStart - 1, keyEnd + 1);
  out.byte(COLON);
}

/**
 * A top-level summary value as the old parse gave it: a string, a RawNumber, a boolean or null.
 * An object or an array leaves the fast path (the summary check refuses them anyway).
 */
export function readScalar(): ProviderValue {
  const c = src[at];
  const start = at;
  if (c === QUOTE) {
    stringEnd();
    return escaped ? decodeString(start, at) : src.toString('utf8', start + 1, at - 1);
  }
  if (c === 0x74 || c === 0x66 || c === 0x6e) {
    literal(c === 0x74 ? TRUE : c === 0x66 ? FALSE : NULL);
    return c === 0x6e ? null : c === 0x74;
  }
  if (c === OPEN_OBJECT || c === OPEN_ARRAY) return offPath();
  numberEnd();
  return new RawNumber(src.toString('latin1', start, at));
}
