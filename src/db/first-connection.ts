// The first connection of a start (the server, a CLI command, migrations through
// MIGRATION_DATABASE_URL), made before anything else: a PostgreSQL that cannot be reached (nothing
// listens, a host that does not resolve, an unknown database or role, a refused password, no
// answer in time) stops the start as an invalid setting does, with one line naming the variable
// and the driver's reason (a configuration error, exit code 2), never the password.
import { ConfigError, shownUrl } from '../config.ts';
import type { DatabaseHandle } from './database.ts';

function reason(err: unknown): string {
  if (err instanceof AggregateError && !err.message) return err.errors.map(reason).join('; ');
  return err instanceof Error ? err.message : String(err);
}

/** The password as written in the URL and decoded, when there is one. */
function passwords(url: string): string[] {
  try {
    const { password } = new URL(url);
    return password ? [password, decodeURIComponent(password)] : [];
  } catch {
    return [];
  }
}

export async function connectOrStop(
  database: DatabaseHandle,
  variable: 'DATABASE_URL' | 'MIGRATION_DATABASE_URL',
  url: string | undefined,
): Promise<void> {
  if (database.kind !== 'postgres' || !url) return;
  try {
    await database.ping();
  } catch (err) {
    const why = passwords(url).reduce((text, password) => text.replaceAll(password, '***'), reason(err));
    throw new ConfigError(`cannot connect to ${variable} (${shownUrl(url)}): ${why}`);
  }
}
