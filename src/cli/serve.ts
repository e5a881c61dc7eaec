// `serve` (what `npm start` runs): migrate, listen, and on an empty embedded database load the
// demo data and print the demo API keys and console account.
import type { Command } from 'commander';
import { parseConfig } from '../config.ts';
import { credentialsText } from './demo.ts';
import { action, type OutputOptions } from './output.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('migrate the database and serve the API (loads the demo on an empty embedded database)')
    .option('--json', 'print the address (and demo credentials) as one JSON line')
    .action(
      action(async (options: OutputOptions) => {
        // Loaded here: the other commands do not need the HTTP app (about a second of start-up).
        const { startServer, stopOnSignals } = await import('../server.ts');
        const { loadDemoWithAccount } = await import('../admin/demo-load.ts');
        const server = await startServer(parseConfig());
        stopOnSignals(server, (msg) => server.app.log.info(msg));
        const { db, kind } = server.database;
        const loaded =
          kind === 'pglite'
            ? await loadDemoWithAccount(db, { fiscalTokenKey: server.app.ctx.secrets.fiscalTokenKey })
            : undefined;
        const demo = loaded && 'api_keys' in loaded ? loaded : undefined;
        if (options.json) {
          const line = {
            listening: server.address,
            demo_api_keys: demo?.api_keys ?? [],
            demo_console_account: demo?.console_account ?? null,
          };
          process.stdout.write(`${JSON.stringify(line)}\n`);
          return;
        }
        const lines = [`comanda listening on ${server.address} (API reference at ${server.address}/docs)`];
        if (demo)
          lines.push('', 'The database was empty: demo data loaded.', credentialsText(demo, server.address));
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    );
}
