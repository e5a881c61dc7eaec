// `user create`: a staff account of the key-management console (src/modules/console/). Without a
// terminal the password is read from standard input; on a terminal a one-time password is made
// and printed once (it must be changed at the first sign-in).
import type { Command } from 'commander';
import { CommandError } from '../admin/commands.ts';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import { action, type OutputOptions, print } from './output.ts';

type Created = { id: number; email: string; restaurant_ids: number[]; one_time_password?: string };

async function passwordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (!password)
    throw new CommandError(
      'standard input is empty: pipe the password, or run on a terminal to get a one-time password',
    );
  return password;
}

function createdText(r: Created): string {
  const lines = [`staff user ${r.id} (${r.email}) created for restaurant(s) ${r.restaurant_ids.join(', ')}.`];
  if (r.one_time_password) {
    lines.push(
      'One-time password (shown only now; it must be changed at the first sign-in at /console/login):',
      '',
      r.one_time_password,
    );
  }
  return lines.join('\n');
}

export function registerUserCommands(program: Command): void {
  program
    .command('user')
    .description('staff accounts of the key-management console')
    .command('create')
    .description(
      'create a console account; prints a one-time password, or reads the password from standard input',
    )
    .requiredOption('--restaurant <id...>', 'restaurant id(s) the staff member works for')
    .requiredOption('--email <email>', 'the sign-in email')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions & { restaurant: string[]; email: string }) => {
        const password = process.stdin.isTTY ? undefined : await passwordFromStdin();
        const args = { email: options.email, restaurant_ids: options.restaurant, password };
        const result = (await runCommand(parseConfig(), 'user create', args)) as Created;
        print(options, result, createdText);
      }),
    );
}
