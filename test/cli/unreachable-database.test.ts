// A PostgreSQL that cannot be reached at start (nothing listens, an unknown database or role, a
// refused password) stops `serve` and every CLI command with one line naming the setting and the
// reason, exit code 2, never the password. A stand-in server answers the start-up as PostgreSQL
// does when it refuses a connection, so no real database is needed.
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { ConfigError } from '../../src/config.ts';
import { migrateFor } from '../../src/db/migrate.ts';
import { testConfig } from '../support/app.ts';
import { createTestDatabase } from '../support/database.ts';
import { cliEnv, runCli, tempDir } from './cli-process.ts';

const PASSWORD = 'hunter2-never-shown';

function listening(t: { after(fn: () => void): void }, onConnection: (socket: Socket) => void) {
  const server = createServer(onConnection);
  t.after(() => server.close());
  return new Promise<Server>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

/** A port nothing listens on: one just let go. */
async function closedPort(t: { after(fn: () => void): void }): Promise<number> {
  const server = await listening(t, () => {});
  const port = portOf(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server that answers the start-up message with PostgreSQL's FATAL ErrorResponse. */
async function refusingPostgres(t: { after(fn: () => void): void }, sqlstate: string, message: string) {
  const server = await listening(t, (socket) => {
    socket.on('error', () => {});
    socket.once('data', () => {
      const field = (type: string, value: string) => Buffer.from(`${type}${value}\0`);
      const body = Buffer.concat([
        field('S', 'FATAL'),
        field('V', 'FATAL'),
        field('C', sqlstate),
        field('M', message),
        Buffer.from([0]),
      ]);
      const head = Buffer.alloc(5);
      head.write('E');
      head.writeInt32BE(body.length + 4, 1);
      socket.end(Buffer.concat([head, body]));
    });
  });
  return portOf(server);
}

test('a CLI command on a PostgreSQL nothing listens on stops with one line naming DATABASE_URL, exit code 2', async (t) => {
  const port = await closedPort(t);
  const env = cliEnv(tempDir(t), {
    DATABASE_URL: `postgres://comanda:${PASSWORD}@127.0.0.1:${port}/comanda`,
  });
  const result = await runCli(['migrate'], env);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(
    result.stderr,
    `configuration error: cannot connect to DATABASE_URL (127.0.0.1:${port}/comanda): connect ECONNREFUSED 127.0.0.1:${port}\n`,
  );
  assert.equal(result.stdout, '');
});

test('an unknown database, an unknown role and a refused password each name DATABASE_URL and the reason, never the password', async (t) => {
  const refusals = [
    ['3D000', 'database "no_such_db" does not exist'],
    ['28000', 'role "comanda" does not exist'],
    ['28P01', 'password authentication failed for user "comanda"'],
  ];
  for (const [sqlstate, reason] of refusals) {
    const port = await refusingPostgres(t, sqlstate, reason);
    const url = `postgres://comanda:${PASSWORD}@127.0.0.1:${port}/no_such_db`;
    const result = await runCli(['api-key', 'list'], cliEnv(tempDir(t), { DATABASE_URL: url }));
    assert.equal(result.code, 2, result.stderr);
    assert.equal(
      result.stderr,
      `configuration error: cannot connect to DATABASE_URL (127.0.0.1:${port}/no_such_db): ${reason}\n`,
    );
  }
});

test('serve on a PostgreSQL that refuses the password stops with the same line, exit code 2', async (t) => {
  const port = await refusingPostgres(t, '28P01', 'password authentication failed for user "comanda"');
  const dataDir = tempDir(t);
  const env = cliEnv(dataDir, {
    DATABASE_URL: `postgres://comanda:${PASSWORD}@127.0.0.1:${port}/comanda`,
    PORT: '0',
  });
  const result = await runCli(['serve'], env);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(
    result.stderr,
    `configuration error: cannot connect to DATABASE_URL (127.0.0.1:${port}/comanda): password authentication failed for user "comanda"\n`,
  );
  assert.doesNotMatch(result.stderr + result.stdout, new RegExp(PASSWORD));
});

test('a MIGRATION_DATABASE_URL that cannot be reached is named as such', async (t) => {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const port = await closedPort(t);
  const config = {
    ...testConfig(),
    migrationDatabaseUrl: `postgres://comanda:${PASSWORD}@127.0.0.1:${port}/comanda`,
  };
  await assert.rejects(migrateFor(config, database), (err: Error) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(
      err.message,
      `cannot connect to MIGRATION_DATABASE_URL (127.0.0.1:${port}/comanda): connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    return true;
  });
});
