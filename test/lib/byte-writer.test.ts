// The writer behind the menu's catalog, the listing, bulk-edit answers and the NF-e list: offsets
// in UTF-8 bytes, growth that keeps what was written, and kept bytes in memory of their own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ByteWriter } from '../../src/lib/byte-writer.ts';

test('text and copy return byte offsets, multi-byte characters counted as UTF-8', () => {
  const writer = new ByteWriter(64);
  assert.equal(writer.text('Pão'), 4);
  assert.equal(writer.copy(Buffer.from(',🧀')), 9);
  assert.equal(writer.text('}}'), 11);
  writer.drop(2);
  assert.equal(writer.copy(Buffer.from('!')), 10);
  assert.equal(writer.written().toString(), 'Pão,🧀!');
});

test('growing past its first room keeps every byte written before', () => {
  const writer = new ByteWriter(64);
  const parts = Array.from({ length: 500 }, (_, i) => `{"id":${i},"nome":"Açaí ${i}"}`);
  for (const part of parts) writer.text(part);
  for (const part of parts) writer.copy(Buffer.from(part));
  assert.equal(writer.take().toString(), parts.join('') + parts.join(''));
});

test("what take() gives is never a slice of Node's shared pool, even when it is a view", () => {
  const writer = new ByteWriter(64);
  writer.copy(Buffer.alloc(60, 'a')); // 4 bytes spare: take() keeps the view
  const kept = writer.take();
  assert.equal(kept.length, 60);
  assert.equal(kept.buffer.byteLength, 64, 'its own 64 bytes, not a pool slab');
  const copied = new ByteWriter(4096);
  copied.text('[]');
  assert.equal(copied.take().buffer.byteLength, 2);
});
