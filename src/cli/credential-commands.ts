// `api-key create|list|revoke` and `session create`.
import type { Command } from 'commander';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import { action, type OutputOptions, print, table, waiting } from './output.ts';

type KeyRow = {
  id: number;
  name: string;
  prefix: string;
  environment: string;
  scopes: string[];
  restaurant_ids: number[];
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string | Date;
  last_used_at: string | Date | null;
};

const run = (name: string, args: Record<string, unknown>) =>
  runCommand(parseConfig(), name, args, { onWait: waiting });

/** Minutes in UTC; a Date when the command ran in this process, a string over the admin channel. */
const when = (instant: string | Date | null) =>
  instant ? new Date(instant).toISOString().slice(0, 16).replace('T', ' ') : 'never';

function listText(keys: KeyRow[]): string {
  if (!keys.length) return 'no API keys';
  const rows = keys.map((k) => {
    const state = k.revoked_at
      ? 'revoked'
      : k.expires_at && Date.parse(k.expires_at) <= Date.now()
        ? 'expired'
        : 'active';
    return [
      String(k.id),
      `${k.prefix}…`,
      state,
      k.restaurant_ids.join(','),
      when(k.created_at),
      when(k.last_used_at),
      k.name,
      k.scopes.join(' '),
    ];
  });
  const header = [
    'ID',
    'PREFIX',
    'STATE',
    'RESTAURANTS',
    'CREATED (UTC)',
    'LAST USED (UTC)',
    'NAME',
    'SCOPES',
  ];
  return table(header, rows);
}

export function registerCredentialCommands(program: Command): void {
  const apiKey = program.command('api-key').description('manage API keys');
  apiKey
    .command('create')
    .description('create an API key; it is printed once')
    .requiredOption('--restaurant <id...>', 'restaurant id(s) the key may act for')
    .requiredOption(
      '--scope <scope...>',
      'scope(s): products:read products:write menu:read financial:read nfe-received:read webhooks:read webhooks:write',
    )
    .option('--name <name>', 'a name to recognise the key by')
    .option('--test', 'a ck_test_ key (same real data; for test integrations)')
    .option('--json', 'print JSON')
    .action(
      action(
        async (
          options: OutputOptions & { restaurant: string[]; scope: string[]; name?: string; test?: boolean },
        ) => {
          const result = (await run('api-key create', {
            restaurant_ids: options.restaurant,
            scopes: options.scope,
            name: options.name,
            test: !!options.test,
          })) as { id: number; api_key: string; restaurant_ids: number[]; scopes: string[] };
          print(options, result, (r) =>
            [
              `API key ${r.id} created for restaurant(s) ${r.restaurant_ids.join(', ')} with ${r.scopes.join(' ')}.`,
              'It is shown only this once; store it now:',
              '',
              r.api_key,
            ].join('\n'),
          );
        },
      ),
    );
  apiKey
    .command('list')
    .description('list API keys (never the keys themselves)')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions) => {
        const result = (await run('api-key list', {})) as { api_keys: KeyRow[] };
        print(options, result, (r) => listText(r.api_keys));
      }),
    );
  apiKey
    .command('revoke')
    .description('revoke an API key and, at once, every access token issued for it')
    .argument('<id>', 'the API key id (see api-key list)')
    .option('--json', 'print JSON')
    .action(
      action(async (id: string, options: OutputOptions) => {
        const result = (await run('api-key revoke', { id })) as { id: number; already_revoked: boolean };
        print(options, result, (r) =>
          r.already_revoked
            ? `API key ${r.id} was already revoked`
            : `API key ${r.id} revoked; its access tokens no longer work`,
        );
      }),
    );

  program
    .command('session')
    .description('restaurant sessions')
    .command('create')
    .description('print a restaurant session token (a bearer for one restaurant, no integration scopes)')
    .requiredOption('--restaurant <id>', 'the restaurant id')
    .option('--ttl <seconds>', 'lifetime in seconds (default 28800, 8 hours)')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions & { restaurant: string; ttl?: string }) => {
        const args = { restaurant_id: options.restaurant, ttl: options.ttl };
        const result = (await run('session create', args)) as { session_token: string };
        print(options, result, (r) => r.session_token);
      }),
    );
}
