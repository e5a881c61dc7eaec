// Where bytes stop being UTF-8: the first byte that begins no valid character, for a message that
// names it (a request body, an import file) instead of reading it as U+FFFD.

export type InvalidUtf8 = {
  /** The byte as `0xe9`. */
  hex: string;
  /** Its offset in the bytes. */
  offset: number;
  /** The text before it (a byte order mark kept), for a line and column. */
  before: string;
};

const lenient = new TextDecoder('utf-8', { ignoreBOM: true });

/** The first byte of `bytes` that is not UTF-8; undefined when they all are. */
export function firstInvalidUtf8(bytes: Uint8Array): InvalidUtf8 | undefined {
  // Everything before the first invalid byte decodes as it is, so its text gives the byte's offset;
  // a U+FFFD the bytes really hold (EF BF BD) is passed over.
  const text = lenient.decode(bytes);
  let offset = 0;
  let from = 0;
  for (let at = text.indexOf('\uFFFD'); at >= 0; at = text.indexOf('\uFFFD', at + 1)) {
    offset += Buffer.byteLength(text.slice(from, at));
    from = at;
    if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) continue;
    return { hex: `0x${bytes[offset].toString(16).padStart(2, '0')}`, offset, before: text.slice(0, at) };
  }
  return undefined;
}
