// Writes a catalog's JSON as UTF-8 into blocks of about a megabyte, each allocated once (no
// growing copy, no pooled slab), and gives the offsets of what was written. A piece that must
// stay next to another (a comma and the product after it) is reserved as one, so it never
// straddles two blocks.

const BLOCK_BYTES = 1 << 20;

export class BlockWriter {
  readonly blocks: Buffer[] = [];
  private current: Buffer;
  /** Where the next byte goes in the current block. */
  pos = 0;

  constructor(expectedBytes: number) {
    this.current = Buffer.allocUnsafeSlow(Math.min(BLOCK_BYTES, Math.max(4096, expectedBytes)));
  }

  /** Index of the current block: the one the next write lands in once reserved. */
  get block(): number {
    return this.blocks.length;
  }

  /** Makes room for `room` bytes in one block (a UTF-16 code unit takes 3 UTF-8 bytes at most). */
  reserve(room: number): void {
    if (this.pos + room <= this.current.length) return;
    if (this.pos > 0) this.blocks.push(this.current.subarray(0, this.pos));
    this.current = Buffer.allocUnsafeSlow(Math.max(BLOCK_BYTES, room));
    this.pos = 0;
  }

  /** Writes reserved text; returns the offset after it. */
  write(text: string): number {
    this.pos += this.current.write(text, this.pos);
    return this.pos;
  }

  /** Copies reserved bytes; returns the offset after them. */
  copy(bytes: Uint8Array): number {
    this.current.set(bytes, this.pos);
    this.pos += bytes.length;
    return this.pos;
  }

  /** Takes back the last `count` bytes written. */
  drop(count: number): void {
    this.pos -= count;
  }

  /** The blocks, the last one copied to its exact size. */
  finish(): Buffer[] {
    const last = Buffer.allocUnsafeSlow(this.pos);
    this.current.copy(last, 0, 0, this.pos);
    this.blocks.push(last);
    this.current = Buffer.alloc(0);
    return this.blocks;
  }
}

/** Bytes the blocks hold, the unused ends of full blocks included. */
export function heldBytes(blocks: readonly Buffer[]): number {
  let bytes = 0;
  for (const block of blocks) bytes += block.buffer.byteLength;
  return bytes;
}
