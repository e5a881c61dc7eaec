// The engine of item-shape.ts's fast loop: item-match.wasm matches the items that have the shape
// learnt and writes them by its plan, sixteen bytes at a time (item-match.wat is its source and
// lays out its memory). JavaScript spent about 2.5 ns a byte on each of the two loops, a third of
// the NF-e detail's CPU. The transcoding is synchronous: one document uses the memory at a time.
import { readFileSync } from 'node:fs';
import type { ByteWriter } from '../../lib/byte-writer.ts';

// The memory's regions (item-match.wat).
const SEPARATOR_STARTS = 0x0000;
const KINDS = 0x1000;
const PLAN = 0x2000;
const SEPARATORS = 0x6000;
const CONSTANTS = 0xa000;
const BODY = 0x10000;
/** Past every region: reads and writes run up to 15 bytes over, the body is followed by zeros. */
const SLACK = 64;
const PAGE = 1 << 16;

/** What a shape may hold to be loaded (item-shape.ts reads the other items the general way). */
export const MAX_PLAN = (SEPARATORS - PLAN) / 4;
export const MAX_SEPARATOR_BYTES = CONSTANTS - SEPARATORS - SLACK;
export const MAX_CONSTANT_BYTES = BODY - CONSTANTS - SLACK;

// The few WebAssembly types used (TypeScript declares them only with the DOM's library).
type Api = {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};
type Exports = {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  run: (...args: number[]) => number;
  pos: { value: number };
  out: { value: number };
};

const { Module, Instance } = (globalThis as unknown as { WebAssembly: Api }).WebAssembly;
const wasm = readFileSync(new URL('./item-match.wasm', import.meta.url));
const { memory, run, pos, out } = new Instance(new Module(wasm)).exports as Exports;

let bytes = new Uint8Array(memory.buffer);
let words = new Int32Array(memory.buffer);
/** The shape loaded: its leaves, the end of its plan, what an item may grow by when written. */
let leaves = -1;
let planEnd = PLAN;
let extra = 0;
/** Where the body copied in starts in the source, and ends in the memory; the output's region. */
let from = 0;
let last = BODY;
let outStart = BODY;
let outEnd = BODY;

export type Shape = {
  leaves: number;
  /** leaves + 2 starts: the last is the end of the tail. */
  separatorAt: Int32Array;
  separators: Uint8Array;
  kinds: Uint8Array;
  constants: Uint8Array;
  plan: Int32Array;
};

/** Whether a shape fits the memory's regions. */
export function fits(separatorBytes: number, constantBytes: number, planLength: number): boolean {
  return (
    separatorBytes <= MAX_SEPARATOR_BYTES && constantBytes <= MAX_CONSTANT_BYTES && planLength <= MAX_PLAN
  );
}

/** Makes `shape` the one items are matched against (fits() must have said it fits). */
export function loadShape(shape: Shape): void {
  words.set(shape.separatorAt.subarray(0, shape.leaves + 2), SEPARATOR_STARTS / 4);
  bytes.set(shape.kinds.subarray(0, shape.leaves), KINDS);
  bytes.set(shape.separators, SEPARATORS);
  bytes.set(shape.constants, CONSTANTS);
  words.set(shape.plan, PLAN / 4);
  leaves = shape.leaves;
  planEnd = PLAN + shape.plan.length * 4;
  // Written, an item is at most its constants and two quotes a leaf longer, and a copy runs over.
  extra = shape.constants.length + 2 * shape.leaves + SLACK;
}

/**
 * Copies the body from `start` (the items' array) into the memory, with room for the output: as
 * long as the body and a quarter (a run that fills it stops, the next starts it again), and
 * always room for one item (at most the body, and `extra`, under 32 KiB).
 */
export function loadBody(source: Uint8Array, start: number): void {
  const length = source.length - start;
  outStart = BODY + length + SLACK;
  const needed = outStart + length + (length >> 2) + (1 << 15) + SLACK;
  if (needed > memory.buffer.byteLength) {
    memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    bytes = new Uint8Array(memory.buffer);
    words = new Int32Array(memory.buffer);
  }
  bytes.set(source.subarray(start), BODY);
  bytes.fill(0, BODY + length, outStart);
  from = start;
  last = BODY + length;
  outEnd = bytes.length - SLACK;
}

/**
 * Matches the items from `position` of the source (an item's `{`) while they have the shape,
 * appending them to `target` joined by commas. Returns how many; matchedTo() is then where the
 * last one ends.
 */
export function matchItems(position: number, target: ByteWriter): number {
  const count = run(BODY + position - from, last, outStart, outEnd, leaves, planEnd, extra);
  if (count > 0) target.copy(bytes, outStart, out.value);
  return count;
}

/** In the source, after the `}` of the last item matchItems() wrote. */
export const matchedTo = (): number => from + pos.value - BODY;
