// Fails when files of src/ import each other in a circle, type imports included, and prints
// each circle. madge finds the same, but its parser needs TypeScript 5's compiler API and the
// project typechecks with TypeScript 7; the relative imports of src/ are plain enough to read
// with one pattern.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', 'src');
const files = readdirSync(root, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(root, f));
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gms;

const edges = new Map<string, string[]>();
for (const file of files) {
  const targets: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
    targets.push(resolve(dirname(file), match[1] ?? match[2]));
  }
  edges.set(
    file,
    targets.filter((t) => edges.has(t) || files.includes(t)),
  );
}

// Tarjan's strongly connected components: every component of more than one file is a circle.
let counter = 0;
const index = new Map<string, number>();
const low = new Map<string, number>();
const stack: string[] = [];
const onStack = new Set<string>();
const circles: string[][] = [];
function visit(file: string): void {
  index.set(file, counter);
  low.set(file, counter++);
  stack.push(file);
  onStack.add(file);
  for (const next of edges.get(file) ?? []) {
    if (!index.has(next)) {
      visit(next);
      low.set(file, Math.min(low.get(file)!, low.get(next)!));
    } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
  }
  if (low.get(file) !== index.get(file)) return;
  const component: string[] = [];
  let member: string;
  do {
    member = stack.pop()!;
    onStack.delete(member);
    component.push(relative(root, member));
  } while (member !== file);
  if (component.length > 1 || (edges.get(file) ?? []).includes(file)) circles.push(component.sort());
}
for (const file of files) if (!index.has(file)) visit(file);

if (circles.length > 0) {
  for (const circle of circles) console.error(`import circle in src/: ${circle.join(', ')}`);
  process.exit(1);
}
console.log(`${files.length} files of src/, no import circle`);
