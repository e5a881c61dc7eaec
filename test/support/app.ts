// buildTestApp(t): an app on a fresh migrated database, closed after the test.
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { buildApp } from '../../src/app.ts';
import { type Config, parseConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export type TestApp = { app: FastifyInstance; ctx: AppContext; database: TestDatabase };

type Hooks = Pick<TestContext, 'after'>;

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...parseConfig({ LOG_LEVEL: 'silent', DATABASE_URL: 'memory://' }),
    restaurantSessionSecret: 'test-session-secret-of-at-least-32-characters',
    fiscalTokenKey: 'test-fiscal-token-key-of-at-least-32-chars',
    ...overrides,
  };
}

export async function buildTestApp(
  t: Hooks,
  options: {
    config?: Partial<Config>;
    database?: TestDatabase;
    logStream?: NodeJS.WritableStream;
    /** Extra routes for testing a mechanism (authentication, errors) before the product has one. */
    routes?: (app: FastifyInstance) => void;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = testConfig(options.config);
  const ctx: AppContext = {
    config,
    database,
    db: database.db,
    secrets: { sessionSecret: config.restaurantSessionSecret!, fiscalTokenKey: config.fiscalTokenKey! },
  };
  const app = await buildApp(ctx, { logStream: options.logStream });
  options.routes?.(app);
  await app.ready();
  t.after(async () => {
    await app.close();
    if (!options.database) await database.close();
  });
  return { app, ctx, database };
}

/** Two instances on one test database, each with its own caches, as a deployment runs them. */
export async function twoInstances(
  t: Hooks,
  options: Omit<Parameters<typeof buildTestApp>[1], 'database'> = {},
) {
  const database = await createTestDatabase();
  t.after(() => database.close());
  const one = await buildTestApp(t, { ...options, database });
  const two = await buildTestApp(t, { ...options, database });
  return { database, one, two };
}

/** For `routes`: POST /test/echo, a body of a number `price` and an optional string `name` and
 * nothing else, answered as sent (the validation errors' route). */
export function echoRoute(app: FastifyInstance): void {
  app.post(
    '/test/echo',
    {
      schema: {
        body: Type.Object(
          { price: Type.Number(), name: Type.Optional(Type.String()) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => request.body,
  );
}
