// `secrets rotate-fiscal-key`: the new key from NEW_FISCAL_TOKEN_KEY (never an argument: the
// process list shows arguments), or a fresh one printed once.
import type { Command } from 'commander';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import { action, type OutputOptions, print, waiting } from './output.ts';

type Rotated = { brands: number; variable: string; new_key?: string; stored_in?: string };

function rotatedText(r: Rotated): string {
  const lines = [`${r.brands} brand fiscal token(s) re-encrypted with the new key.`];
  if (r.stored_in) lines.push(`The new key is stored in ${r.stored_in} (FISCAL_TOKEN_KEY is not set).`);
  else if (r.new_key)
    lines.push(
      'Set it on every server and CLI now (shown only this once); until then they refuse to start:',
      '',
      `${r.variable}=${r.new_key}`,
    );
  else lines.push(`Set ${r.variable} to the value of NEW_FISCAL_TOKEN_KEY on every server and CLI now.`);
  lines.push('Servers still running with the old key cannot read the tokens: restart them with the new one.');
  return lines.join('\n');
}

export function registerSecretCommands(program: Command): void {
  program
    .command('secrets')
    .description('server secrets kept in step with the database')
    .command('rotate-fiscal-key')
    .description(
      're-encrypt every brand fiscal token with a new key in one transaction (the new key from NEW_FISCAL_TOKEN_KEY, or generated)',
    )
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions) => {
        const args = { new_key: process.env.NEW_FISCAL_TOKEN_KEY };
        const result = (await runCommand(parseConfig(), 'secrets rotate-fiscal-key', args, {
          onWait: waiting,
        })) as Rotated;
        print(options, result, rotatedText);
      }),
    );
}
