#!/usr/bin/env node
// `comanda`: the command line (architecture.md). Configuration comes from the environment.
import { Command } from 'commander';
import { registerCredentialCommands } from './cli/credential-commands.ts';
import { registerDatabaseCommands, registerExport } from './cli/database-commands.ts';
import { registerDemo } from './cli/demo.ts';
import { registerFiscalSimulator } from './cli/fiscal-simulator.ts';
import { quietOnClosedStdout } from './cli/output.ts';
import { registerSecretCommands } from './cli/secrets.ts';
import { registerServe } from './cli/serve.ts';
import { registerUserCommands } from './cli/user.ts';
import { registerWebhookCommands } from './cli/webhook-commands.ts';
import { EnvFileError, loadEnvFile } from './lib/env-file.ts';

quietOnClosedStdout();
try {
  loadEnvFile();
} catch (err) {
  if (!(err instanceof EnvFileError)) throw err;
  process.stderr.write(`configuration error: ${err.message}\n`);
  process.exit(2);
}

const program = new Command('comanda')
  .description(
    'comanda: back-office API for restaurants (configuration from the environment and ./.env, see .env.example)',
  )
  .showHelpAfterError('(add --help for usage)');

registerServe(program);
registerDatabaseCommands(program);
registerExport(program);
registerDemo(program);
registerCredentialCommands(program);
registerFiscalSimulator(program);
registerSecretCommands(program);
registerUserCommands(program);
registerWebhookCommands(program);

await program.parseAsync();
