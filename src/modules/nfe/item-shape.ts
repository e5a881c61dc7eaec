// The items of a document nearly always have the same keys, in the same order, with values of
// the same kinds, containers included (`nves`, `rastros`). Once an item has been transcoded the
// general way (transcode-document.ts), its shape is learnt: its leaves (every string, number,
// null, true and false in it, in order, with their kinds), the bytes between them (keys and
// brackets: `{"numero_item":`, `,"nves":[{"nve":`) and a plan that writes the item's groups in the
// contract's order. The items that follow are matched against that shape and written by the plan
// in WebAssembly (item-match.ts), as many in a row as have it. An item that differs in any way
// (another key, kind or bracket, a space, an escape) is read the general way from its start, so
// the bytes are always the general path's.
import { ascii, ByteWriter } from '../../lib/byte-writer.ts';
import type { FieldLayout } from './field-layout.ts';
import { fits, loadBody, loadShape, matchedTo, matchItems } from './item-match.ts';
import * as scan from './json-bytes.ts';
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

// Kinds of leaf: a string without escapes, a number, and the three literals (item-match.wat
// matches them by these numbers).
const STRING = 0;
const NUMBER = 1;
const NULL = 2;
const TRUE = 3;
const FALSE = 4;
const LITERALS = [ascii(''), ascii(''), ascii('null'), ascii('true'), ascii('false')];
/** true and false where the general path writes them as text. */
const QUOTED_LITERALS = [ascii(''), ascii(''), ascii(''), ascii('"true"'), ascii('"false"')];

// The plan's steps, five numbers each. A place in the body is given as a separator of the shape
// (the bytes before leaf s; s = leaves: the tail, up to the item's `}`) and an offset in it.
// COPY (s, offset, s, offset): the body's bytes between two places; CONSTANT (offset, length) of
// `constants`; QUOTED (leaf, length of the separator before it): a number's text in quotes.
// item-match.wat carries them out.
const COPY = 0;
const CONSTANT = 1;
const QUOTED = 2;
const STEP = 5;

/** item-match.wat's regions hold this many leaves. */
const MAX_LEAVES = 512;
const MAX_LEARNT = 16;
const ADDITIONAL = ascii(',"additional_fields":{');
const NO_SHAPE = new Error('item without a shape');

type Place = { s: number; offset: number };
/** A member of the item: the field it is (-1: none), its key, its value, the leaves in it. */
type Member = { id: number; key: Place; from: Place; to: Place; first: number; last: number };

export class ItemShape {
  private readonly layout: FieldLayout;
  /** Leaves of the shape; -1: none learnt. */
  private leaves = -1;
  /** Shapes learnt in this document: items that keep changing shape are read the general way. */
  private learnt = 0;
  private readonly separators = new ByteWriter(1 << 12);
  /** Where separator s starts in `separators`; s + 1's start is where it ends. */
  private readonly separatorAt = new Int32Array(MAX_LEAVES + 2);
  private readonly kinds = new Uint8Array(MAX_LEAVES);
  private readonly constants = new ByteWriter(1 << 12);
  /** Whether the body is in item-match.ts's memory (from the items on). */
  private bodyLoaded = false;
  /** Items written by a shape since the start (the tests read it). */
  matched = 0;

  /** Items of `layout`'s groups. */
  constructor(layout: FieldLayout) {
    this.layout = layout;
  }

  /** Forgets the shape (a new document). */
  reset(): void {
    this.leaves = -1;
    this.learnt = 0;
    this.bodyLoaded = false;
  }

  /**
   * At an item's `{`: when it has the shape learnt, writes it to `out` (and the items after it
   * that have it too, joined by commas), moves the scan past the last one's `}` and returns true;
   * otherwise writes and moves nothing.
   */
  match(out: ByteWriter): boolean {
    if (this.leaves < 0) return false;
    if (!this.bodyLoaded) {
      loadBody(scan.source(), scan.at);
      this.bodyLoaded = true;
    }
    const count = matchItems(scan.at, out);
    if (count === 0) return false;
    scan.seek(matchedTo());
    this.matched += count;
    return true;
  }

  /**
   * Learns the shape of the item from `start` (its `{`) to `stop` (after its `}`), which the
   * general path has just transcoded, so it is valid JSON with plain keys. An item it cannot
   * describe (spaces, escapes, too many leaves) leaves no shape.
   */
  learn(start: number, stop: number): void {
    // An item with an escape (`\u00e7`, `\u0026`: some providers write them) has no shape; the
    // items around it usually keep theirs, so the one learnt stays.
    if (scan.source().subarray(start, stop).includes(BACKSLASH)) return;
    this.leaves = -1;
    if (++this.learnt > MAX_LEARNT) return;
    try {
      const { members, leaves } = this.walk(start, stop);
      const plan = this.planFor(members);
      const separators = this.separators.written();
      const constants = this.constants.written();
      if (!fits(separators.length, constants.length, plan.length)) return;
      const { separatorAt, kinds } = this;
      loadShape({ leaves, separatorAt, separators, kinds, constants, plan });
      this.leaves = leaves;
    } catch (error) {
      if (error !== NO_SHAPE) throw error;
    }
  }

  /** Splits the item into separators and leaves, and lists its members. */
  private walk(start: number, stop: number): { members: Member[]; leaves: number } {
    const bytes = scan.source();
    const separators = this.separators;
    separators.length = 0;
    let count = 0;
    let separatorStart = start;
    const place = (at: number): Place => ({ s: count, offset: at - separatorStart });
    const leaf = (from: number, kind: number, to: number): number => {
      if (count === MAX_LEAVES || to < 0) throw NO_SHAPE;
      this.separatorAt[count] = separators.length;
      separators.copy(bytes, separatorStart, from);
      this.kinds[count++] = kind;
      separatorStart = to;
      return to;
    };
    const list: Member[] = [];
    // An object from its `{` at i to after its `}`; the item's own members are listed.
    const object = (i: number, listed: boolean): number => {
      if (bytes[++i] === CLOSE_OBJECT) return i + 1;
      for (;;) {
        const keyEnd = bytes.indexOf(QUOTE, i + 1);
        if (bytes[i] !== QUOTE || bytes[keyEnd + 1] !== COLON) throw NO_SHAPE;
        const key = place(i);
        const from = place(keyEnd + 2);
        const first = count;
        const name = bytes.subarray(i + 1, keyEnd);
        i = value(keyEnd + 2);
        if (listed) list.push({ id: this.layout.idOf(name), key, from, to: place(i), first, last: count });
        if (bytes[i] === CLOSE_OBJECT) return i + 1;
        if (bytes[i++] !== COMMA) throw NO_SHAPE;
      }
    };
    const value = (i: number): number => {
      const c = bytes[i];
      if (c === QUOTE) {
        const close = bytes.indexOf(QUOTE, i + 1);
        if (close < 0 || bytes.subarray(i, close).includes(BACKSLASH)) throw NO_SHAPE;
        return leaf(i, STRING, close + 1);
      }
      if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return leaf(i, NUMBER, scan.numberEndAt(bytes, i));
      for (const kind of [NULL, TRUE, FALSE]) {
        const literal = LITERALS[kind];
        if (literal.equals(bytes.subarray(i, i + literal.length))) return leaf(i, kind, i + literal.length);
      }
      if (c === OPEN_OBJECT) return object(i, false);
      if (c !== OPEN_ARRAY) throw NO_SHAPE;
      if (bytes[++i] === CLOSE_ARRAY) return i + 1;
      for (;;) {
        i = value(i);
        if (bytes[i] === CLOSE_ARRAY) return i + 1;
        if (bytes[i++] !== COMMA) throw NO_SHAPE;
      }
    };
    if (object(start, true) !== stop) throw NO_SHAPE;
    // The tail: from the last leaf to the item's `}`.
    this.separatorAt[count] = separators.length;
    separators.copy(bytes, separatorStart, stop);
    this.separatorAt[count + 1] = separators.length;
    return { members: list, leaves: count };
  }

  /** The steps that write the item: its groups in the contract's order, then its additional fields. */
  private planFor(members: Member[]): Int32Array {
    const { separatorAt, kinds } = this;
    const separatorBytes = this.separators.bytes;
    const steps: number[] = [];
    const constants = this.constants;
    constants.length = 0;
    let pending = 0;
    const flush = () => {
      if (constants.length > pending) steps.push(CONSTANT, pending, constants.length - pending, 0, 0);
      pending = constants.length;
    };
    const copy = (from: Place, to: Place) => {
      if (from.s === to.s && from.offset === to.offset) return;
      // Joined to the copy before it when that ends where this starts, or one comma before (the
      // comma to be written between them is then the body's own).
      const n = steps.length;
      if (n > 0 && steps[n - STEP] === COPY && steps[n - 2] === from.s) {
        const end = steps[n - 1];
        const adjacent = constants.length === pending && end === from.offset;
        const comma =
          constants.length === pending + 1 &&
          constants.bytes[pending] === COMMA &&
          end + 1 === from.offset &&
          separatorBytes[separatorAt[from.s] + end] === COMMA;
        if (adjacent || comma) {
          constants.length = pending;
          steps[n - 2] = to.s;
          steps[n - 1] = to.offset;
          return;
        }
      }
      flush();
      steps.push(COPY, from.s, from.offset, to.s, to.offset);
    };
    const length = (leaf: number) => separatorAt[leaf + 1] - separatorAt[leaf];
    // The key and the value as the general path writes a group's field: numbers and true and
    // false in quotes, containers' too; the rest as in the body.
    const asText = (member: Member) => {
      let at = member.key;
      for (let leaf = member.first; leaf < member.last; leaf++) {
        const kind = kinds[leaf];
        if (kind === STRING || kind === NULL) continue;
        copy(at, { s: leaf, offset: length(leaf) });
        if (kind === NUMBER) {
          flush();
          steps.push(QUOTED, leaf, length(leaf), 0, 0);
        } else constants.constant(QUOTED_LITERALS[kind]);
        at = { s: leaf + 1, offset: 0 };
      }
      copy(at, member.to);
    };
    for (const group of this.layout.groupList) {
      constants.copyView(group.open, 0, group.open.byteLength);
      let comma = false;
      for (let id = group.first; id < group.last; id++) {
        const member = members.find((m) => m.id === id);
        if (!member) continue;
        if (comma) constants.byte(COMMA);
        comma = true;
        asText(member);
      }
      constants.byte(CLOSE_OBJECT);
    }
    // The fields no group names, as they are in the body.
    constants.constant(ADDITIONAL);
    let comma = false;
    for (const member of members) {
      if (member.id >= 0) continue;
      if (comma) constants.byte(COMMA);
      comma = true;
      copy(member.key, member.to);
    }
    constants.byte(CLOSE_OBJECT);
    constants.byte(CLOSE_OBJECT);
    flush();
    return Int32Array.from(steps);
  }
}
