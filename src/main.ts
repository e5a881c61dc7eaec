// Process entry: parse the configuration, start the service, stop gracefully on signals.
// Start-up failures (bad configuration, data folder held by another server, port taken)
// are one line on stderr, as the CLI prints them.
import { fail } from './cli/output.ts';
import { parseConfig } from './config.ts';
import { loadEnvFile } from './lib/env-file.ts';
import { startServer, stopOnSignals } from './server.ts';

try {
  loadEnvFile();
  const server = await startServer(parseConfig());
  stopOnSignals(server, (msg) => server.app.log.info(msg));
} catch (err) {
  process.exit(fail(err));
}
