// A growing buffer of UTF-8 text whose length is the byte offset written so far: text is encoded
// straight into it, never through an intermediate string of the whole body or a Buffer per piece.
// The legacy listing records where each product's bytes sit as it writes them (GET
// /v1/products/{id} answers from there); a bulk edit's products and the NF-e list are written the
// same way.

export class ByteWriter {
  bytes: Buffer;
  length = 0;

  constructor(capacity = 4096) {
    this.bytes = Buffer.allocUnsafe(capacity);
  }

  /** Text as UTF-8, encoded in place (a UTF-16 code unit takes at most 3 bytes of UTF-8). */
  text(value: string): void {
    if (this.length + value.length * 3 > this.bytes.length) {
      let capacity = this.bytes.length * 2;
      while (capacity < this.length + value.length * 3) capacity *= 2;
      const bigger = Buffer.allocUnsafe(capacity);
      bigger.set(this.bytes.subarray(0, this.length));
      this.bytes = bigger;
    }
    this.length += this.bytes.write(value, this.length);
  }

  /** The bytes written so far (a view: later writes may move them). */
  written(): Buffer {
    return this.bytes.subarray(0, this.length);
  }

  /**
   * The bytes written, copied out when the spare room is worth giving back (to be kept), into
   * memory of their own (a short Buffer.from would be a slice of Node's shared pool).
   */
  take(): Buffer {
    const used = this.written();
    if (this.bytes.length - this.length <= this.length / 8) return used;
    const copy = Buffer.allocUnsafeSlow(used.length);
    used.copy(copy);
    return copy;
  }
}
