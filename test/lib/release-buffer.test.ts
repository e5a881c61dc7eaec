import assert from 'node:assert/strict';
import { test } from 'node:test';
import { releaseBuffer } from '../../src/lib/release-buffer.ts';

test('a large buffer is freed at once: detached, and no longer counted by V8', () => {
  const size = 8 * 1024 * 1024;
  const bytes = Buffer.allocUnsafe(size).fill(7);
  const before = process.memoryUsage().arrayBuffers;
  releaseBuffer(bytes);
  assert.equal(bytes.buffer.detached, true);
  assert.equal(bytes.length, 0);
  assert.ok(before - process.memoryUsage().arrayBuffers >= size, 'freed without waiting for a collection');
});

test('a view frees the whole allocation under it (the caller owns all of it)', () => {
  const whole = Buffer.allocUnsafe(256 * 1024);
  const view = whole.subarray(10, 20);
  releaseBuffer(view);
  assert.equal(whole.buffer.detached, true);
});

test("buffers under 128 KiB are left alone: small ones are slices of Node's shared pool", () => {
  const a = Buffer.allocUnsafe(100).fill(1);
  const b = Buffer.allocUnsafe(100).fill(2);
  assert.equal(a.buffer, b.buffer, 'both slices of the pool');
  releaseBuffer(a);
  assert.equal(a.buffer.detached, false);
  assert.equal(b[99], 2);
  const medium = Buffer.allocUnsafe(128 * 1024 - 1);
  releaseBuffer(medium);
  assert.equal(medium.buffer.detached, false);
});

test('releasing twice, or memory that cannot be detached, does nothing more and never throws', () => {
  const bytes = Buffer.allocUnsafe(128 * 1024);
  releaseBuffer(bytes);
  releaseBuffer(bytes);
  assert.equal(bytes.buffer.detached, true);
  const shared = new Uint8Array(new SharedArrayBuffer(128 * 1024));
  releaseBuffer(shared);
  assert.equal(shared.length, 128 * 1024);
  // TypeScript declares WebAssembly only with the DOM's library.
  const { Memory } = (
    globalThis as unknown as {
      WebAssembly: { Memory: new (d: { initial: number }) => { buffer: ArrayBuffer } };
    }
  ).WebAssembly;
  const wasm = new Uint8Array(new Memory({ initial: 4 }).buffer);
  releaseBuffer(wasm);
  assert.equal(wasm.length, 4 * 65536);
});
