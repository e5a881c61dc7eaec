// The WebAssembly of the service is written as text (`src/**/*.wat`) and run from the binary
// committed beside it (`.wasm`): the server has no build step. `npm run wasm` writes the binaries
// again; test/modules/nfe/item-match.test.ts fails when one no longer matches its text.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import wabt from 'wabt';

const SOURCES = fileURLToPath(new URL('../src', import.meta.url));

/** The binary of a `.wat` file, without debug names (the same bytes on every machine). */
export async function compileWat(path: string): Promise<Uint8Array> {
  const module = (await wabt()).parseWat(path, readFileSync(path, 'utf8'), { simd: true });
  try {
    module.resolveNames();
    module.validate();
    return module.toBinary({ write_debug_names: false }).buffer;
  } finally {
    module.destroy();
  }
}

/** Every `.wat` under src/. */
export function watSources(): string[] {
  return readdirSync(SOURCES, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.wat'))
    .map((name) => join(SOURCES, name));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const source of watSources()) {
    const target = source.replace(/\.wat$/, '.wasm');
    writeFileSync(target, await compileWat(source));
    console.log(`wrote ${target}`);
  }
}
