// Process entry: parse the configuration, start the service, stop gracefully on signals.
import { ConfigError, parseConfig } from './config.ts';
import { startServer, stopOnSignals } from './server.ts';

try {
  const config = parseConfig();
  const server = await startServer(config);
  stopOnSignals(server, (msg) => server.app.log.info(msg));
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
