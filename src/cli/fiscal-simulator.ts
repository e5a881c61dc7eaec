// `fiscal-simulator`: a local fiscal provider speaking the provider's protocol
// (fiscal-provider.md) that serves the received NF-e of an import file (default: the demo data),
// accepting the brands' fiscal tokens of that file. Point FISCAL_PROVIDER_URL at it.
import type { Command } from 'commander';
import { CommandError } from '../admin/commands.ts';
import { buildDemoData } from '../demo/demo.ts';
import { startFiscalSimulator } from '../fiscal-simulator/fiscal-simulator.ts';
import {
  buildProviderDocument,
  type ProviderDocument,
  type SimulatorNote,
} from '../fiscal-simulator/simulator-documents.ts';
import { parseFile } from '../import/collections.ts';
import { Issues } from '../import/issues.ts';
import { readJsonFile } from './database-commands.ts';
import { action, fail, type OutputOptions, print } from './output.ts';

type Options = OutputOptions & { port: string; host: string; data?: string };

function notesOf(data: unknown, source: string) {
  const issues = new Issues();
  const parsed = parseFile(data, issues);
  issues.throwIfAny(`${source} does not follow the import format`);
  const rows = (name: string) =>
    parsed.find((p) => p.collection.name === name)?.records.map((r) => r.row) ?? [];
  const notes = new Map<string, ProviderDocument>();
  for (const note of rows('nfe_received')) {
    notes.set(note.access_key, buildProviderDocument(note as SimulatorNote, { summaryOnly: !note.complete }));
  }
  const tokens = new Set<string>(rows('brands').flatMap((b) => (b.fiscal_token ? [b.fiscal_token] : [])));
  return { notes, tokens };
}

export function registerFiscalSimulator(program: Command): void {
  program
    .command('fiscal-simulator')
    .description('serve the NF-e of an import file (default: the demo data) as the fiscal provider would')
    .option('--port <port>', 'port to listen on', '3100')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data <file>', 'an import-format JSON file: its nfe_received and brands[].fiscal_token')
    .option('--json', 'print JSON')
    .action(
      action(async (options: Options) => {
        const data = options.data ? readJsonFile(options.data) : buildDemoData();
        const { notes, tokens } = notesOf(data, options.data ?? 'the demo data');
        const port = Number(options.port);
        if (!/^\d+$/.test(options.port) || port > 65535) {
          throw new CommandError(`--port must be a whole number from 0 to 65535 (got "${options.port}")`);
        }
        const simulator = await startFiscalSimulator({ port, host: options.host, notes, tokens });
        const result = { url: simulator.url, notes: notes.size, tokens: tokens.size };
        print(options, result, (r) =>
          [
            `fiscal simulator listening on ${r.url} (${r.notes} notes, ${r.tokens} brand tokens)`,
            `run the server with FISCAL_PROVIDER_URL=${r.url}`,
            ...(r.tokens
              ? []
              : ['warning: no brand of the file has a fiscal_token: every query will be refused (403)']),
          ].join('\n'),
        );
        const stop = () =>
          simulator.close().then(
            () => process.exit(0),
            (err) => process.exit(fail(err)),
          );
        process.once('SIGTERM', stop);
        process.once('SIGINT', stop);
      }),
    );
}
