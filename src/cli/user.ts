// `user create`: a staff account of the key-management console (src/modules/console/). Without a
// terminal the password is read from standard input; on a terminal a one-time password is made
// and printed once (it must be changed at the first sign-in).
import type { Command } from 'commander';
import { CommandError } from '../admin/commands.ts';
import { runCommand } from '../admin/run-command.ts';
import type { StaffDisabled, StaffListing, StaffReset } from '../admin/user-commands.ts';
import { parseConfig } from '../config.ts';
import { action, type OutputOptions, print, table, waiting } from './output.ts';

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

function listText(users: StaffListing[]): string {
  if (!users.length) return 'no console accounts';
  const rows = users.map((u) => [
    String(u.id),
    u.email,
    u.disabled ? 'disabled' : u.must_change_password ? 'one-time password' : 'active',
    u.restaurant_ids.join(','),
    u.created_at.slice(0, 16).replace('T', ' '),
  ]);
  return table(['ID', 'EMAIL', 'STATE', 'RESTAURANTS', 'CREATED (UTC)'], rows);
}

const run = (name: string, args: Record<string, unknown>) =>
  runCommand(parseConfig(), name, args, { onWait: waiting });

export function registerUserCommands(program: Command): void {
  const user = program.command('user').description('staff accounts of the key-management console');
  user
    .command('list')
    .description('list console accounts: email, state, restaurants')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions) => {
        const result = (await run('user list', {})) as { users: StaffListing[] };
        print(options, result, (r) => listText(r.users));
      }),
    );
  user
    .command('reset-password')
    .description('give an account a one-time password and end all its console sessions')
    .argument('<email>', 'the sign-in email')
    .option('--json', 'print JSON')
    .action(
      action(async (email: string, options: OutputOptions) => {
        const result = (await run('user reset-password', { email })) as StaffReset;
        print(options, result, (r) =>
          [
            `${r.email}: password reset; ${r.sessions_ended} console session(s) ended.`,
            'One-time password (shown only now; it must be changed at the next sign-in at /console/login):',
            '',
            r.one_time_password,
          ].join('\n'),
        );
      }),
    );
  user
    .command('disable')
    .description('stop an account from signing in and end all its console sessions')
    .argument('<email>', 'the sign-in email')
    .option('--json', 'print JSON')
    .action(
      action(async (email: string, options: OutputOptions) => {
        const result = (await run('user disable', { email })) as StaffDisabled;
        print(options, result, (r) =>
          r.already_disabled
            ? `${r.email} was already disabled`
            : `${r.email} disabled; ${r.sessions_ended} console session(s) ended`,
        );
      }),
    );
  user
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
