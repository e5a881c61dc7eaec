// A growing buffer of UTF-8 whose length is the byte offset written so far: text is encoded
// straight into it, never through an intermediate string of the whole body or a Buffer per piece.
// The menu's catalog and the legacy listing record where each product's bytes sit as they write
// them (a read answers from slices of them); a bulk edit's products and the NF-e list are written
// the same way. Its memory is never a slice of Node's shared pool: a kept body would keep the slab.

export class ByteWriter {
  bytes: Buffer;
  length = 0;

  constructor(capacity = 4096) {
    this.bytes = Buffer.allocUnsafeSlow(Math.max(64, capacity));
  }

  /** Room for `more` bytes (a UTF-16 code unit takes at most 3 bytes of UTF-8). */
  private room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    let capacity = this.bytes.length * 2;
    while (capacity < this.length + more) capacity *= 2;
    const bigger = Buffer.allocUnsafeSlow(capacity);
    this.bytes.copy(bigger, 0, 0, this.length);
    this.bytes = bigger;
  }

  /** Text as UTF-8, encoded in place; returns the offset after it. */
  text(value: string): number {
    this.room(value.length * 3);
    this.length += this.bytes.write(value, this.length);
    return this.length;
  }

  /** Copies bytes; returns the offset after them. */
  copy(value: Uint8Array): number {
    this.room(value.length);
    this.bytes.set(value, this.length);
    this.length += value.length;
    return this.length;
  }

  /** Takes back the last `count` bytes written. */
  drop(count: number): void {
    this.length -= count;
  }

  /** The bytes written so far (a view: later writes may move them). */
  written(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  /** The bytes written, copied out when the spare room is worth giving back (to be kept). */
  take(): Buffer {
    const used = this.written();
    if (this.bytes.length - this.length <= this.length / 8) return used;
    const copy = Buffer.allocUnsafeSlow(used.length);
    used.copy(copy);
    return copy;
  }
}
