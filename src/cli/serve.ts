// `serve` (what `npm start` runs): migrate, listen, and on an empty embedded database load the
// demo data and print the demo API keys and console account. On the demo data without
// FISCAL_PROVIDER_URL the NF-e detail queries the fiscal simulator the server runs in its process
// (src/admin/demo-fiscal-provider.ts); the banner says so in one line.
import type { Command } from 'commander';
import { type Config, parseConfig } from '../config.ts';
import type { RunningServer } from '../server.ts';
import { credentialsText } from './demo.ts';
import { action, type OutputOptions } from './output.ts';

/**
 * The server started (`started` runs at once: the signal handlers), the demo loaded on an empty
 * embedded database, and the URL of the demo's fiscal simulator when it runs.
 */
export async function startService(config: Config, started: (server: RunningServer) => void = () => {}) {
  // Loaded here: the other commands do not need the HTTP app (about a second of start-up).
  const { startServer } = await import('../server.ts');
  const { loadDemoWithAccount } = await import('../admin/demo-load.ts');
  const server = await startServer(config);
  started(server);
  const { db, kind } = server.database;
  const loaded =
    kind === 'pglite'
      ? await loadDemoWithAccount(db, { fiscalTokenKey: server.app.ctx.secrets.fiscalTokenKey })
      : undefined;
  const demo = loaded && 'api_keys' in loaded ? loaded : undefined;
  // A demo loaded just now: the check made at the start found no demo data yet.
  const fiscalSimulator = demo ? await server.demoFiscalProvider.start() : server.demoFiscalProvider.url();
  return { server, demo, fiscalSimulator };
}

export const simulatorLine = (url: string) =>
  `NF-e detail: FISCAL_PROVIDER_URL is not set and the data is the demo's, so the fiscal simulator at ${url} (in this process) answers for the demo notes.`;

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('migrate the database and serve the API (loads the demo on an empty embedded database)')
    .option('--json', 'print the address (and demo credentials) as one JSON line')
    .action(
      action(async (options: OutputOptions) => {
        const { stopOnSignals } = await import('../server.ts');
        const { server, demo, fiscalSimulator } = await startService(parseConfig(), (started) =>
          stopOnSignals(started, (msg) => started.app.log.info(msg)),
        );
        if (options.json) {
          const line = {
            listening: server.address,
            demo_api_keys: demo?.api_keys ?? [],
            demo_console_account: demo?.console_account ?? null,
            fiscal_simulator: fiscalSimulator ?? null,
          };
          process.stdout.write(`${JSON.stringify(line)}\n`);
          return;
        }
        const lines = [`comanda listening on ${server.address} (API reference at ${server.address}/docs)`];
        if (fiscalSimulator) lines.push(simulatorLine(fiscalSimulator));
        if (demo)
          lines.push('', 'The database was empty: demo data loaded.', credentialsText(demo, server.address));
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    );
}
