// A large buffer's memory given back the moment its owner is done with it. A Buffer's memory is
// otherwise freed only when V8 collects the object that holds it, and it counts meanwhile as
// external memory: V8 answers external memory that grows by tens of MiB with a full collection.
// The NF-e detail allocates about 2.2 MiB per read (the provider's body, the answer), so at 32
// connections the server ran a full collection every 50-100 ms and held 20-80 MiB of dead
// buffers between them.

/**
 * Smaller buffers may be slices of Node's shared pool (64 KiB in Node 24), which must never be
 * detached (Node marks it so, and transfer() throws on it).
 */
const SMALLEST = Math.max(128 * 1024, 2 * Buffer.poolSize);

/**
 * Frees the memory under `bytes` now (ArrayBuffer.prototype.transfer(0) detaches it): every view
 * of it then has length 0. Only for memory the caller allocated and nothing else reads, native
 * code included (a socket write holds its buffer until the write's callback). Buffers under 128 KiB,
 * and any that cannot be detached, are left to the collector: this never throws.
 */
export function releaseBuffer(bytes: Uint8Array): void {
  const { buffer } = bytes;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached || buffer.byteLength < SMALLEST) return;
  try {
    buffer.transfer(0);
  } catch {
    // Not detachable (a WebAssembly memory's, say): the collector frees it.
  }
}
