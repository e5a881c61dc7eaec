import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstInvalidUtf8 } from '../../src/lib/utf8.ts';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((part) => Buffer.from(part)));

test('the first byte that is not UTF-8, its offset and the text before it', () => {
  assert.equal(firstInvalidUtf8(bytes('Café 🍕 \uFFFD')), undefined);
  assert.deepEqual(firstInvalidUtf8(bytes('Caf', [0xe9])), { hex: '0xe9', offset: 3, before: 'Caf' });
  // A real U+FFFD (EF BF BD) and a byte order mark are text before the bad byte.
  assert.deepEqual(firstInvalidUtf8(bytes([0xef, 0xbb, 0xbf], 'ã\uFFFD\n', [0x80], 'x')), {
    hex: '0x80',
    offset: 9,
    before: '\uFEFFã\uFFFD\n',
  });
  // A character cut short, at the end or before another.
  assert.deepEqual(firstInvalidUtf8(bytes('ab', [0xe2, 0x82])), { hex: '0xe2', offset: 2, before: 'ab' });
  assert.deepEqual(firstInvalidUtf8(bytes([0xef, 0xbf, 0xef, 0xbf, 0xbd])), {
    hex: '0xef',
    offset: 0,
    before: '',
  });
});
