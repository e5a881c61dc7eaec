// The WebAssembly the service runs is the binary committed beside its text: this fails when the
// text was changed without `npm run wasm` (or the binary without the text).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { compileWat, watSources } from '../../../scripts/wasm.ts';

test('every .wasm is its .wat compiled', async () => {
  const sources = watSources();
  assert.ok(sources.some((path) => path.endsWith('item-match.wat')));
  for (const source of sources) {
    const committed = readFileSync(source.replace(/\.wat$/, '.wasm'));
    assert.ok(Buffer.from(await compileWat(source)).equals(committed), `${source}: run npm run wasm`);
  }
});
