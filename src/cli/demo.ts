// `demo`: loads the demo data set. On a database that already holds data it says what a reload
// replaces and asks on a terminal; without a terminal it needs --yes.
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { CommandError } from '../admin/command-context.ts';
import { DEMO_REPLACED, DEMO_REPLACES } from '../admin/demo-load.ts';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import type { DemoKey } from '../demo/demo.ts';
import { action, countsText, type OutputOptions, print, progressDisplay, waiting } from './output.ts';

type DemoLoaded = {
  counts: Record<string, number>;
  api_keys: DemoKey[];
  console_account: { email: string; one_time_password: string };
  replaced: boolean;
};

function keysText(keys: DemoKey[]): string {
  return keys
    .map((k) => `  ${k.name} (restaurants ${k.restaurant_ids.join(', ')}):\n    ${k.api_key}`)
    .join('\n');
}

/** The demo's credentials as printed by `demo` and by `serve` on its first start. */
export function credentialsText(
  demo: Pick<DemoLoaded, 'api_keys' | 'console_account'>,
  address = '',
): string {
  return [
    'Demo API keys (shown once):',
    keysText(demo.api_keys),
    '',
    `Console account (${address}/console/login), one-time password to change at the first sign-in:`,
    `  ${demo.console_account.email}`,
    `  ${demo.console_account.one_time_password}`,
  ].join('\n');
}

async function confirmed(): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new CommandError(
      'the database already holds data: run comanda demo --yes to replace the demo records (restaurants 1 and 2, API keys 1-3, the demo console password)',
    );
  }
  process.stderr.write(`The database already holds data. ${DEMO_REPLACES}\n`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question('Replace them? [y/N] ')).trim());
  } finally {
    prompt.close();
  }
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(
      'load the built-in demo data set (two restaurants, catalog, finance, NF-e, API keys, a console account)',
    )
    .option('--yes', 'replace the demo records of a database that holds data without asking')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions & { yes?: boolean }) => {
        const config = parseConfig();
        const run = { onWait: waiting, onProgress: options.json ? undefined : progressDisplay() };
        let result = (await runCommand(config, 'demo', { replace: !!options.yes }, run)) as
          | DemoLoaded
          | { holds_data: true };
        if ('holds_data' in result) {
          if (!(await confirmed())) throw new CommandError('nothing was changed');
          result = (await runCommand(config, 'demo', { replace: true }, run)) as DemoLoaded;
        }
        print(options, result, (r) =>
          [
            `demo data loaded:\n${countsText(r.counts)}`,
            ...(r.replaced ? ['', DEMO_REPLACED] : []),
            '',
            credentialsText(r),
          ].join('\n'),
        );
      }),
    );
}
