// The contract's groups (provider-fields.ts) as the transcoder uses them: an id per named field,
// found from the key just scanned (by its hash, or by guessing it is the key that came at the
// same place in the previous object), and where each field's value is, written out group by
// group in the contract's order.
import { ascii, type ByteWriter, viewOf } from '../../lib/byte-writer.ts';
import * as scan from './json-bytes.ts';

/** A group: the bytes that open it (`{"group":{` or `,"group":{`) and its field ids, first to last (excluded). */
export type Group = { open: DataView; first: number; last: number };
type Convert = (scratch: ByteWriter, depth: number) => void;

export class FieldLayout {
  private readonly names: Uint8Array[] = [];
  private readonly nameViews: DataView[] = [];
  private readonly prefixes: DataView[] = [];
  private readonly hashes: number[];
  private readonly groups: Group[] = [];
  private readonly slots: Int32Array;
  private readonly mask: number;
  // The object being read: which fields it has (seen === stamp), how and where their values are.
  private readonly seen: Int32Array;
  private readonly kind: Uint8Array;
  private readonly start: Int32Array;
  private readonly stop: Int32Array;
  private stamp = 0;
  // The ids of the previous object's keys in their order (-1: a key no group names).
  private readonly order = new Int32Array(256).fill(-1);
  private position = 0;

  constructor(groups: Record<string, string[]>) {
    for (const [group, fields] of Object.entries(groups)) {
      const first = this.names.length;
      for (const field of fields) {
        this.names.push(ascii(field));
        this.nameViews.push(viewOf(ascii(field)));
        this.prefixes.push(viewOf(ascii(`${JSON.stringify(field)}:`)));
      }
      const open = viewOf(ascii(`${first === 0 ? '{' : ','}${JSON.stringify(group)}:{`));
      this.groups.push({ open, first, last: this.names.length });
    }
    if (new Set(Object.values(groups).flat()).size !== this.names.length)
      throw new Error('a field is in two groups');
    this.hashes = this.names.map(scan.hashOf);
    let size = 16;
    while (size < this.names.length * 4) size *= 2;
    this.mask = size - 1;
    this.slots = new Int32Array(size);
    this.names.forEach((_, id) => {
      let i = this.hashes[id] & this.mask;
      while (this.slots[i] !== 0) i = (i + 1) & this.mask;
      this.slots[i] = id + 1;
    });
    const count = this.names.length;
    this.seen = new Int32Array(count);
    this.kind = new Uint8Array(count);
    this.start = new Int32Array(count);
    this.stop = new Int32Array(count);
  }

  /** Starts a new object (fields seen before belong to the previous one). */
  begin(): void {
    this.stamp++;
    this.position = 0;
  }

  /** Reads the next key of the object: the id of the field it names, or -1 (then keyHash is set). */
  readKey(): number {
    const position = this.position++;
    const guess = position < this.order.length ? this.order[position] : -1;
    if (guess >= 0 && scan.readKnownKey(this.nameViews[guess])) return guess;
    scan.readKey();
    const id = this.find();
    if (position < this.order.length) this.order[position] = id;
    return id;
  }

  /** The groups in the contract's order. */
  get groupList(): readonly Group[] {
    return this.groups;
  }

  /** The id of the field called `name` (its bytes), or -1 when no group names it. */
  idOf(name: Uint8Array): number {
    const hash = scan.hashOf(name);
    for (let i = hash & this.mask; ; i = (i + 1) & this.mask) {
      const slot = this.slots[i];
      if (slot === 0) return -1;
      if (this.hashes[slot - 1] === hash && Buffer.compare(this.names[slot - 1], name) === 0) return slot - 1;
    }
  }

  /** The id of the key json-bytes.ts just read, or -1 when no group names it. */
  find(): number {
    for (let i = scan.keyHash & this.mask; ; i = (i + 1) & this.mask) {
      const slot = this.slots[i];
      if (slot === 0) return -1;
      if (this.hashes[slot - 1] === scan.keyHash && scan.keyIs(this.names[slot - 1])) return slot - 1;
    }
  }

  /**
   * Reads the value of field `id` (a second one in the same object leaves the fast path);
   * `convert`, when given, writes it to `scratch` instead of readField.
   */
  readValue(id: number, scratch: ByteWriter, depth: number, convert?: Convert): void {
    if (this.seen[id] === this.stamp) scan.offPath();
    this.seen[id] = this.stamp;
    const before = scratch.length;
    let kind = scan.CONVERTED;
    if (convert) convert(scratch, depth);
    else kind = scan.readField(scratch, depth);
    this.kind[id] = kind;
    if (kind === scan.CONVERTED) {
      this.start[id] = before;
      this.stop[id] = scratch.length;
    } else {
      this.start[id] = kind === scan.WHOLE ? scan.keyStart - 1 : scan.valueStart;
      this.stop[id] = scan.at;
    }
  }

  /** `{"group":{"field":value,...},...` with each group's fields the object has, in order. */
  writeGroups(out: ByteWriter, scratch: ByteWriter): void {
    const source = scan.sourceView();
    for (let g = 0; g < this.groups.length; g++) {
      const { open } = this.groups[g];
      out.copyView(open, 0, open.byteLength);
      this.writeFields(out, source, scratch.view, g);
      out.byte(0x7d);
    }
  }

  /** The fields of group `g` the object has, comma separated. */
  writeFields(out: ByteWriter, source: DataView, scratch: DataView, g: number): void {
    const { seen, kind, start, stop, stamp } = this;
    const { first, last } = this.groups[g];
    let comma = false;
    for (let id = first; id < last; id++) {
      if (seen[id] !== stamp) continue;
      if (comma) out.byte(0x2c);
      comma = true;
      const how = kind[id];
      if (how === scan.WHOLE) out.copyView(source, start[id], stop[id]);
      else {
        const prefix = this.prefixes[id];
        out.copyView(prefix, 0, prefix.byteLength);
        if (how === scan.CONVERTED) out.copyView(scratch, start[id], stop[id]);
        else if (how === scan.PLAIN) out.copyView(source, start[id], stop[id]);
        else {
          out.byte(0x22);
          out.copyView(source, start[id], stop[id]);
          out.byte(0x22);
        }
      }
    }
  }
}
