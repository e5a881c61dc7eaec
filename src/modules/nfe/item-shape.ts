// The items of a document nearly always have the same keys, in the same order, with values of
// the same kinds. Once an item has been transcoded the general way (transcode-document.ts), its
// shape is learnt: the bytes before each value (`{"numero_item":`, `,"codigo_produto":`), each
// value's kind, and a plan that writes the values group by group. The next item is matched against
// that shape in one loop (separators compared four bytes at a time, values scanned, no lookup),
// then written by the plan. An item that differs in any way (another key, another kind, a space,
// an escape) is read the general way from its start, so the bytes are always the general path's.
import { ascii, ByteWriter } from '../../lib/byte-writer.ts';
import type { FieldLayout } from './field-layout.ts';
import * as scan from './json-bytes.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

// Kinds of value: a string without escapes, a number, null, anything else (copied by json-bytes).
const STRING = 0;
const NUMBER = 1;
const NULL = 2;
const OTHER = 3;

// The plan's steps, three numbers each: CONSTANT (offset, length) of `constants`; WHOLE (first,
// last): values first to last, consecutive in the body, with their keys (`"a":"x","b":"y"`);
// QUOTED (e): a number's text in quotes; CONVERTED (e): the value as copied into scratch.
const CONSTANT = 0;
const WHOLE = 1;
const QUOTED = 2;
const CONVERTED = 3;

const MAX_ENTRIES = 256;
const MAX_LEARNT = 16;
const ADDITIONAL = ascii(',"additional_fields":{');

export class ItemShape {
  private readonly layout: FieldLayout;
  private readonly depth: number;
  /** Members of the shape; 0: none learnt. */
  private entries = 0;
  /** Shapes learnt in this document: items that keep changing shape are read the general way. */
  private learnt = 0;
  private readonly separators = new ByteWriter(1 << 12);
  private readonly separatorAt = new Int32Array(MAX_ENTRIES + 1);
  private readonly kinds = new Uint8Array(MAX_ENTRIES);
  /** OTHER values of group fields are copied as text (numbers and booleans quoted). */
  private readonly asText = new Uint8Array(MAX_ENTRIES);
  private readonly constants = new ByteWriter(1 << 12);
  private plan: Int32Array = new Int32Array(0);
  // The item being matched: where each key's quote is, where each value starts and ends (in the
  // body, or in scratch for OTHER).
  private readonly keyAt = new Int32Array(MAX_ENTRIES);
  private readonly valueStart = new Int32Array(MAX_ENTRIES);
  private readonly valueEnd = new Int32Array(MAX_ENTRIES);
  private readonly scratch = new ByteWriter(1 << 14);
  /** Items written by a shape since the start (the tests read it). */
  matched = 0;

  /** Items of `layout`'s groups, read at `depth` (the general path's depth for their values). */
  constructor(layout: FieldLayout, depth: number) {
    this.layout = layout;
    this.depth = depth;
  }

  /** Forgets the shape (a new document). */
  reset(): void {
    this.entries = 0;
    this.learnt = 0;
  }

  /**
   * At an item's `{`: when it has the shape learnt, writes it to `out`, moves the scan past its `}`
   * and returns true; otherwise writes and moves nothing.
   */
  match(out: ByteWriter): boolean {
    if (this.entries === 0) return false;
    const start = scan.at;
    if (!this.read()) {
      // Containers are read by json-bytes, which moved the scan.
      scan.seek(start);
      return false;
    }
    this.write(out, scan.sourceView());
    this.matched++;
    return true;
  }

  /** Reads the item at the scan as the shape says (where each value is), moving past its `}`; false if it differs. */
  private read(): boolean {
    const count = this.entries;
    const bytes = scan.source();
    const body = scan.sourceView();
    const last = bytes.length;
    const { separatorAt, kinds, keyAt, valueStart, valueEnd, scratch } = this;
    const separators = this.separators.view;
    const separatorBytes = this.separators.bytes;
    scratch.length = 0;
    let i = scan.at;
    for (let e = 0; e < count; e++) {
      const from = separatorAt[e];
      const length = separatorAt[e + 1] - from;
      // The separator, and the value's first byte, are inside the body.
      if (i + length >= last) return false;
      let k = 0;
      for (; k + 4 <= length; k += 4)
        if (body.getUint32(i + k, true) !== separators.getUint32(from + k, true)) return false;
      for (; k < length; k++) if (bytes[i + k] !== separatorBytes[from + k]) return false;
      keyAt[e] = i + 1;
      i += length;
      const kind = kinds[e];
      const c = bytes[i];
      if (kind === STRING) {
        if (c !== QUOTE) return false;
        valueStart[e] = i;
        for (i++; ; i++) {
          if (i >= last) return false;
          const b = bytes[i];
          if (b === QUOTE) break;
          if (b === BACKSLASH || b < 0x20) return false;
        }
        valueEnd[e] = ++i;
      } else if (kind === NUMBER) {
        const stop = scan.numberEndAt(bytes, i);
        if (stop < 0) return false;
        valueStart[e] = i;
        valueEnd[e] = i = stop;
      } else if (kind === NULL) {
        if (c !== 0x6e || bytes[i + 1] !== 0x75 || bytes[i + 2] !== 0x6c || bytes[i + 3] !== 0x6c)
          return false;
        valueStart[e] = i;
        valueEnd[e] = i += 4;
      } else {
        if (c !== OPEN_OBJECT && c !== OPEN_ARRAY && c !== 0x74 && c !== 0x66) return false;
        // As the general path copies it (the same depth, text or not): it throws where that would.
        scan.seek(i);
        valueStart[e] = scratch.length;
        scan.copyValue(scratch, this.asText[e] === 1, this.depth);
        valueEnd[e] = scratch.length;
        i = scan.at;
      }
    }
    if (bytes[i] !== CLOSE_OBJECT) return false;
    scan.seek(i + 1);
    return true;
  }

  private write(out: ByteWriter, body: DataView): void {
    const { plan, keyAt, valueStart, valueEnd } = this;
    const constants = this.constants.view;
    const scratch = this.scratch.view;
    for (let p = 0; p < plan.length; p += 3) {
      const step = plan[p];
      const a = plan[p + 1];
      const b = plan[p + 2];
      if (step === CONSTANT) out.copyView(constants, a, a + b);
      else if (step === WHOLE) out.copyView(body, keyAt[a], valueEnd[b]);
      else if (step === QUOTED) {
        out.byte(QUOTE);
        out.copyView(body, valueStart[a], valueEnd[a]);
        out.byte(QUOTE);
      } else out.copyView(scratch, valueStart[a], valueEnd[a]);
    }
  }

  /**
   * Learns the shape of the item from `start` (its `{`) to `stop` (after its `}`), which the
   * general path has just transcoded, so it is valid JSON with plain keys. An item it cannot
   * describe (spaces, escapes, no members, too many) leaves no shape.
   */
  learn(start: number, stop: number): void {
    this.entries = 0;
    if (++this.learnt > MAX_LEARNT) return;
    const bytes = scan.source();
    const ids: number[] = [];
    const separators = this.separators;
    separators.length = 0;
    let i = start;
    let count = 0;
    if (bytes[i + 1] === CLOSE_OBJECT) return;
    while (bytes[i] === (count === 0 ? OPEN_OBJECT : COMMA)) {
      if (count === MAX_ENTRIES) return;
      const from = i;
      if (bytes[++i] !== QUOTE) return;
      const keyEnd = bytes.indexOf(QUOTE, i + 1);
      if (bytes[keyEnd + 1] !== COLON) return;
      i = keyEnd + 2;
      const kind = kindAt(bytes[i]);
      if (kind < 0) return;
      if (kind === STRING) {
        const close = bytes.indexOf(QUOTE, i + 1);
        if (close < 0 || bytes.subarray(i, close).includes(BACKSLASH)) return;
        i = close + 1;
      } else {
        i = kind === NUMBER ? scan.numberEndAt(bytes, i) : kind === NULL ? i + 4 : otherEnd(bytes, i);
        if (i < 0) return;
      }
      this.separatorAt[count] = separators.length;
      separators.copy(bytes, from, keyEnd + 2);
      this.kinds[count] = kind;
      ids.push(this.layout.idOf(bytes.subarray(from + 2, keyEnd)));
      count++;
    }
    if (bytes[i] !== CLOSE_OBJECT || i + 1 !== stop) return;
    this.separatorAt[count] = separators.length;
    this.plan = this.planFor(ids);
    this.entries = count;
  }

  /** The steps that write the item: its groups in the contract's order, then its additional fields. */
  private planFor(ids: number[]): Int32Array {
    const steps: number[] = [];
    const constants = this.constants;
    constants.length = 0;
    let pending = constants.length;
    const flush = () => {
      if (constants.length > pending) steps.push(CONSTANT, pending, constants.length - pending);
      pending = constants.length;
    };
    const key = (e: number) => {
      const from = this.separatorAt[e] + 1;
      constants.copy(this.separators.bytes, from, this.separatorAt[e + 1]);
    };
    const value = (e: number, text: boolean) => {
      const kind = this.kinds[e];
      this.asText[e] = text ? 1 : 0;
      if (kind === OTHER || (kind === NUMBER && text)) {
        key(e);
        flush();
        steps.push(kind === OTHER ? CONVERTED : QUOTED, e, e);
        return;
      }
      // A key and its value as they are in the body; joined to the previous one when that is
      // the member before it there and only a comma was to come between them.
      const joins =
        steps.length > 0 &&
        steps[steps.length - 3] === WHOLE &&
        steps[steps.length - 1] === e - 1 &&
        constants.length === pending + 1 &&
        constants.bytes[pending] === COMMA;
      if (joins) {
        constants.length = pending;
        steps[steps.length - 1] = e;
      } else {
        flush();
        steps.push(WHOLE, e, e);
      }
    };
    for (const group of this.layout.groupList) {
      constants.copyView(group.open, 0, group.open.byteLength);
      let comma = false;
      for (let id = group.first; id < group.last; id++) {
        const e = ids.indexOf(id);
        if (e < 0) continue;
        if (comma) constants.byte(COMMA);
        comma = true;
        value(e, true);
      }
      constants.byte(CLOSE_OBJECT);
    }
    constants.constant(ADDITIONAL);
    let comma = false;
    ids.forEach((id, e) => {
      if (id >= 0) return;
      if (comma) constants.byte(COMMA);
      comma = true;
      value(e, false);
    });
    constants.byte(CLOSE_OBJECT);
    constants.byte(CLOSE_OBJECT);
    flush();
    return Int32Array.from(steps);
  }
}

/** The kind of the value starting with `c`; -1 for a space (learn describes compact items only). */
function kindAt(c: number): number {
  if (c === QUOTE) return STRING;
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return NUMBER;
  if (c === 0x6e) return NULL;
  return c === OPEN_OBJECT || c === OPEN_ARRAY || c === 0x74 || c === 0x66 ? OTHER : -1;
}

/** Where the object, array, true or false at `i` ends (valid JSON: the general path read it). */
function otherEnd(bytes: Uint8Array, i: number): number {
  const c = bytes[i];
  if (c === 0x74) return i + 4;
  if (c === 0x66) return i + 5;
  let depth = 0;
  for (;;) {
    const b = bytes[i++];
    if (b === QUOTE) {
      while (bytes[i] !== QUOTE) i += bytes[i] === BACKSLASH ? 2 : 1;
      i++;
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
    else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      if (--depth === 0) return i;
    } else if (b === undefined) return -1;
  }
}
