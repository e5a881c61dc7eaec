// `migrate`, `import <file>` (or `--check`) and `export`: run through runCommand (directly, or over the running
// server's admin channel when it owns the embedded database).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import writeFileAtomic from 'write-file-atomic';
import { CommandError } from '../admin/commands.ts';
import { RemoteFailure } from '../admin/failure.ts';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import { ImportError } from '../import/import.ts';
import { firstInvalidUtf8 } from '../lib/utf8.ts';
import { action, countsText, type OutputOptions, print, progressDisplay, waiting } from './output.ts';

/**
 * A JSON file's text. JSON is UTF-8 (RFC 8259): a file in another encoding (a Latin-1 or
 * Windows-1252 export of an ERP) is refused where its first byte that is not UTF-8 is, never read
 * with its accents silently replaced by U+FFFD. A byte order mark is dropped.
 */
export function readJsonFile(file: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CommandError(
      `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new CommandError(`${file} is not UTF-8 text (${firstInvalidByte(bytes)}); save it as UTF-8`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CommandError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const duplicate = duplicateKey(text);
  if (duplicate) {
    throw new CommandError(
      `${file} gives ${duplicate.path} twice (the second at ${duplicate.where}); a key may appear only once in an object`,
    );
  }
  if (deeperThan(data, MAX_DEPTH)) {
    throw new CommandError(`${file} nests arrays and objects more than ${MAX_DEPTH} levels deep`);
  }
  return data;
}

/**
 * Far deeper than an import file nests (a record's JSON values included); a file past it would
 * overflow the stack of the JSON.stringify that sends it to the server.
 */
const MAX_DEPTH = 64;

/** Whether `value` nests arrays and objects more than `max` levels deep (walked without recursion). */
function deeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [at, depth] = next;
    if (at === null || typeof at !== 'object') continue;
    if (depth > max) return true;
    for (const child of Object.values(at)) pending.push([child, depth + 1]);
  }
  return false;
}

type Frame = { keys?: Set<string>; at: string | number; expectsKey: boolean };

/**
 * The first key given twice in one object (`products[3].price`) and where its second is: JSON.parse
 * keeps the last value silently, and a reviver sees only that one. `text` is valid JSON (parsed
 * already), so outside its strings only structural characters matter: one pass over them (about
 * 0.5 s for 60 MB, as long as JSON.parse takes), keeping the keys of each open object.
 */
function duplicateKey(text: string): { path: string; where: string } | undefined {
  const significant = /["{}[\],:]/g;
  const open: Frame[] = [];
  let top: Frame | undefined;
  for (let match = significant.exec(text); match; match = significant.exec(text)) {
    const [found] = match;
    if (found === '"') {
      const end = stringEnd(text, match.index);
      significant.lastIndex = end + 1;
      if (!top?.expectsKey || !top.keys) continue;
      const quoted = text.slice(match.index, end + 1);
      const key: string = quoted.includes('\\') ? JSON.parse(quoted) : quoted.slice(1, -1);
      top.at = key;
      if (top.keys.has(key))
        return { path: pathOf(open.map((frame) => frame.at)), where: lineOf(text, match.index) };
      top.keys.add(key);
    } else if (found === '{' || found === '[') {
      top = found === '{' ? { keys: new Set(), at: '', expectsKey: true } : { at: 0, expectsKey: false };
      open.push(top);
    } else if (found === '}' || found === ']') {
      open.pop();
      top = open.at(-1);
    } else if (found === ',') {
      if (top?.keys) top.expectsKey = true;
      else if (top) top.at = (top.at as number) + 1;
    } else if (top) top.expectsKey = false; // ':'
  }
  return undefined;
}

/** The index of the quote that ends the string starting at `start`: one not escaped by a backslash. */
function stringEnd(text: string, start: number): number {
  for (let end = text.indexOf('"', start + 1); ; end = text.indexOf('"', end + 1)) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return end;
  }
}

/** `products[3].price`; a key that is not a plain name is quoted: `sped["a b"]`. */
function pathOf(steps: (string | number)[]): string {
  return steps
    .map((step, i) => {
      if (typeof step === 'number') return `[${step}]`;
      return /^[A-Za-z_$][\w$]*$/.test(step) ? `${i ? '.' : ''}${step}` : `[${JSON.stringify(step)}]`;
    })
    .join('');
}

/** `line 12, column 7` of the character at `index`. */
function lineOf(text: string, index: number): string {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return `line ${line}, column ${index - text.lastIndexOf('\n', index - 1)}`;
}

/** Where the first byte that is not UTF-8 is: `byte 0xe9 at line 2, column 42`. */
function firstInvalidByte(bytes: Buffer): string {
  const bad = firstInvalidUtf8(bytes);
  if (!bad) return 'an incomplete character at its end';
  const line = bad.before.split('\n').length;
  const column = bad.before.length - bad.before.lastIndexOf('\n');
  return `byte ${bad.hex} at line ${line}, column ${column}`;
}

export function registerDatabaseCommands(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions) => {
        const result = (await runCommand(parseConfig(), 'migrate', {}, { onWait: waiting })) as {
          applied: string[];
        };
        print(options, result, (r) =>
          r.applied.length ? `applied: ${r.applied.join(', ')}` : 'the database is up to date',
        );
      }),
    );

  program
    .command('import')
    .description('load a data file (import format, docs/import-format.md) in one transaction')
    .argument('<file>', 'a JSON file in the import format')
    .option('--check', 'check the file against itself and the database, write nothing, report every problem')
    .option('--json', 'print JSON (the problems too, when the file is refused)')
    .action(
      action(async (file: string, options: OutputOptions & { check?: boolean }) => {
        try {
          const data = readJsonFile(file);
          if (options.check) return await check(file, data, options);
          const run = { onWait: waiting, onProgress: options.json ? undefined : progressDisplay() };
          const result = (await runCommand(parseConfig(), 'import', { data }, run)) as {
            counts: Record<string, number>;
          };
          print(options, result, (r) => `imported ${file}:\n${countsText(r.counts)}`);
        } catch (err) {
          const problems = problemsOf(err);
          if (!options.json || !problems) throw err;
          process.stdout.write(`${JSON.stringify({ ok: false, problems }, null, 2)}\n`);
          process.exitCode = 1;
        }
      }),
    );
}

export function registerExport(program: Command): void {
  program
    .command('export')
    .description(
      "write a restaurant's data as an import file (fiscal tokens left out unless --include-secrets)",
    )
    .requiredOption('--restaurant <id>', 'the restaurant id')
    .option('--include-secrets', "write the brands' fiscal tokens in plain text (the file is then a secret)")
    .option('--output <file>', 'write to this file (mode 0600) instead of standard output')
    .action(
      action(async (options: { restaurant: string; includeSecrets?: boolean; output?: string }) => {
        const args = { restaurant_id: options.restaurant, include_secrets: !!options.includeSecrets };
        const data = await runCommand(parseConfig(), 'export', args, { onWait: waiting });
        const text = `${JSON.stringify(data, null, 2)}\n`;
        if (!options.output) return void process.stdout.write(text);
        // Written aside and renamed with mode 0600, even over an existing file (which keeps its
        // own mode when written in place).
        try {
          writeFileAtomic.sync(options.output, text, { mode: 0o600 });
        } catch (err) {
          // Its error names the temporary file beside the output: name the output itself.
          const { code, message } = err as NodeJS.ErrnoException;
          throw new CommandError(`cannot write ${options.output}: ${code ?? message}`);
        }
        const counts = Object.fromEntries(
          Object.entries(data as Record<string, unknown[]>).map(([k, v]) => [k, v.length]),
        );
        process.stderr.write(
          `exported restaurant ${options.restaurant} to ${options.output}:\n${countsText(counts)}\n`,
        );
      }),
    );
}

/** The problems of a refused file: the import's list, or the one reason it could not be read. */
function problemsOf(err: unknown): string[] | undefined {
  if (err instanceof ImportError) return err.issues;
  if (err instanceof RemoteFailure && err.problems) return err.problems;
  if (err instanceof CommandError) return [err.message];
  return undefined;
}

async function check(file: string, data: unknown, options: OutputOptions) {
  const { problems } = (await runCommand(parseConfig(), 'import check', { data }, { onWait: waiting })) as {
    problems: string[];
  };
  if (options.json) process.stdout.write(`${JSON.stringify({ ok: !problems.length, problems }, null, 2)}\n`);
  else if (!problems.length)
    process.stdout.write(`${file}: no problems; comanda import ${file} would load it\n`);
  else {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    process.stderr.write(
      `${file}: ${count}, nothing was written:\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
    );
  }
  if (problems.length) process.exitCode = 1;
}
