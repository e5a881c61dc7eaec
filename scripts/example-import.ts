// Writes examples/demo.json: the demo data set as an import file (`comanda import
// examples/demo.json` takes it as it is), for a fixed month so the file does not change between
// runs. No API keys: a key in the repository would be a key anyone can use. `npm run example`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildDemoData } from '../src/demo/demo.ts';

export const EXAMPLE_FILE = new URL('../examples/demo.json', import.meta.url);

/** The demo period ends in this month (May 2026). */
const TODAY = new Date('2026-05-20T12:00:00Z');

export function exampleText(): string {
  const { api_keys: _none, ...data } = buildDemoData({ today: TODAY });
  return `${JSON.stringify(data, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(EXAMPLE_FILE, exampleText());
  process.stdout.write(`wrote ${fileURLToPath(EXAMPLE_FILE)}\n`);
}
