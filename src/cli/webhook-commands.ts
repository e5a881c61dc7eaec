// `webhooks list`: the webhook endpoints (never their secrets) and the state of their deliveries.
import type { Command } from 'commander';
import { runCommand } from '../admin/run-command.ts';
import { parseConfig } from '../config.ts';
import { action, type OutputOptions, print, waiting } from './output.ts';

type EndpointLine = {
  id: number;
  restaurant_id: number;
  url: string;
  events: string[];
  status: string;
  disabled_reason: string | null;
  pending_deliveries: number;
  failed_deliveries: number;
};

function listText(endpoints: EndpointLine[]): string {
  if (!endpoints.length) return 'no webhook endpoints';
  return endpoints
    .map((e) => {
      const state = e.status === 'disabled' ? `disabled (${e.disabled_reason})` : 'enabled';
      const queue = `${e.pending_deliveries} pending, ${e.failed_deliveries} failed`;
      return `${String(e.id).padStart(4)}  restaurant ${e.restaurant_id}  ${state}  ${queue}  ${e.url}  ${e.events.join(' ')}`;
    })
    .join('\n');
}

export function registerWebhookCommands(program: Command): void {
  program
    .command('webhooks')
    .description('webhook endpoints')
    .command('list')
    .description('list webhook endpoints with their pending and failed deliveries')
    .option('--restaurant <id>', 'only this restaurant')
    .option('--json', 'print JSON')
    .action(
      action(async (options: OutputOptions & { restaurant?: string }) => {
        const args = options.restaurant === undefined ? {} : { restaurant_id: options.restaurant };
        const result = (await runCommand(parseConfig(), 'webhooks list', args, { onWait: waiting })) as {
          webhook_endpoints: EndpointLine[];
        };
        print(options, result, (r) => listText(r.webhook_endpoints));
      }),
    );
}
