// `serve` (what `npm start` runs): migrate, listen, and on an empty embedded database load the
// demo data and print the demo API keys.
import type { Command } from 'commander';
import { parseConfig } from '../config.ts';
import { keysText } from './database-commands.ts';
import { action, type OutputOptions } from './output.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('migrate the database and serve the API (loads the demo on an empty embedded database)')
    .option('--json', 'print the address (and demo keys) as one JSON line')
    .action(
      action(async (options: OutputOptions) => {
        // Loaded here: the other commands do not need the HTTP app (about a second of start-up).
        const { startServer, stopOnSignals } = await import('../server.ts');
        const { loadDemo } = await import('../demo/demo.ts');
        const server = await startServer(parseConfig());
        stopOnSignals(server, (msg) => server.app.log.info(msg));
        const { db, kind } = server.database;
        const restaurants = await db
          .selectFrom('restaurants')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        const demo =
          kind === 'pglite' && Number(restaurants.n) === 0
            ? await loadDemo(db, { fiscalTokenKey: server.app.ctx.secrets.fiscalTokenKey })
            : undefined;
        if (options.json) {
          process.stdout.write(
            `${JSON.stringify({ listening: server.address, demo_api_keys: demo?.api_keys ?? [] })}\n`,
          );
          return;
        }
        const lines = [`comanda listening on ${server.address} (API reference at ${server.address}/docs)`];
        if (demo)
          lines.push(
            '',
            'The database was empty: demo data loaded. Demo API keys (shown once):',
            keysText(demo.api_keys),
          );
        process.stdout.write(`${lines.join('\n')}\n`);
      }),
    );
}
