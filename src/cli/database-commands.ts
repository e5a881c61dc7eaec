// `migrate` and `import <file>`: run through runCommand (directly, or over the running
// server's admin channel when it owns the embedded database).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CommandError } from '../admin/commands.ts';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import { action, countsText, type OutputOptions, print, progressDisplay, waiting } from './output.ts';

export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CommandError(
      `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? 'unreadable')}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CommandError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
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
    .description('load a data file (import format) in one transaction')
    .argument('<file>', 'a JSON file in the import format')
    .option('--json', 'print JSON')
    .action(
      action(async (file: string, options: OutputOptions) => {
        const data = readJsonFile(file);
        const run = { onWait: waiting, onProgress: options.json ? undefined : progressDisplay() };
        const result = (await runCommand(parseConfig(), 'import', { data }, run)) as {
          counts: Record<string, number>;
        };
        print(options, result, (r) => `imported ${file}:\n${countsText(r.counts)}`);
      }),
    );
}
