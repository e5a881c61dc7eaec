// The database's own time for a route: the app runs in this process on a Kysely whose driver,
// while a probed request is in flight, precedes every statement with EXPLAIN (ANALYZE,
// TIMING OFF, FORMAT JSON) of that same statement and parameters, inside a savepoint (or a
// transaction) that is rolled back, so writes are measured in the state they really meet and
// leave nothing behind. The route's time in the database is the sum over its statements of
// Planning Time + Execution Time (BEGIN/COMMIT and network round trips are not included).
import type { FastifyInstance } from 'fastify';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  Kysely,
  PGliteDialect,
  PostgresDialect,
} from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { parseConfig } from '../src/config.ts';
import type { Db } from '../src/db/database.ts';
import type { Database } from '../src/db/types.ts';
import type { BenchDatabase } from './bench-database.ts';
import { type BenchRequest, nextOf } from './load.ts';
import { BENCH_SECRETS } from './server-env.ts';

const EXPLAINABLE = /^\s*(select|insert|update|delete|with)\b/i;
const REPEATS = 3;

export type DbTime = { ms: number; queries: number };

/** The pause after a route's first request, for the background work it started to end. */
const SETTLE_MS = 300;
type Plan = { 'Planning Time': number; 'Execution Time': number };
type Exec = DatabaseConnection['executeQuery'];

async function explainOnce(exec: Exec, query: CompiledQuery, inTransaction: boolean): Promise<number> {
  const run = (text: string) => exec(CompiledQuery.raw(text));
  await run(inTransaction ? 'savepoint bench_explain' : 'begin');
  try {
    const explain = CompiledQuery.raw(`explain (analyze, timing off, format json) ${query.sql}`, [
      ...query.parameters,
    ]);
    const { rows } = await exec(explain);
    const cell = (rows[0] as Record<string, unknown>)['QUERY PLAN'];
    const [plan] = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Plan[];
    return plan['Planning Time'] + plan['Execution Time'];
  } finally {
    await run(inTransaction ? 'rollback to savepoint bench_explain' : 'rollback');
  }
}

type Recorder = { on: boolean; times: number[] };

function explainingDialect(inner: Dialect, recorder: Recorder): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createIntrospector: (db) => inner.createIntrospector(db),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createDriver() {
      const driver = inner.createDriver();
      const open = new WeakSet<DatabaseConnection>();
      const patched = new WeakSet<DatabaseConnection>();
      const { acquireConnection, beginTransaction, commitTransaction, rollbackTransaction } = driver;
      driver.beginTransaction = async (conn, settings) => {
        await beginTransaction.call(driver, conn, settings);
        open.add(conn);
      };
      driver.commitTransaction = (conn) => {
        open.delete(conn);
        return commitTransaction.call(driver, conn);
      };
      driver.rollbackTransaction = (conn) => {
        open.delete(conn);
        return rollbackTransaction.call(driver, conn);
      };
      driver.acquireConnection = async () => {
        const conn = await acquireConnection.call(driver);
        if (patched.has(conn)) return conn;
        patched.add(conn);
        const exec: Exec = conn.executeQuery.bind(conn);
        conn.executeQuery = (async (query: CompiledQuery) => {
          if (recorder.on && EXPLAINABLE.test(query.sql)) {
            const times: number[] = [];
            for (let i = 0; i < REPEATS; i++) times.push(await explainOnce(exec, query, open.has(conn)));
            recorder.times.push(times.sort((a, b) => a - b)[REPEATS >> 1]);
          }
          return exec(query);
        }) as Exec;
        return conn;
      };
      return driver;
    },
  };
}

export type Probe = {
  /** Sends a request to the in-process app; its body as text (throws unless 2xx). */
  send(request: BenchRequest): Promise<string>;
  /** Sends the request to warm up, then again with every statement explained. */
  measure(request: BenchRequest): Promise<DbTime>;
  close(): Promise<void>;
};

export async function openProbe(bench: BenchDatabase, env: Record<string, string>): Promise<Probe> {
  const recorder: Recorder = { on: false, times: [] };
  const pool =
    'DATABASE_URL' in bench.serverEnv
      ? new pg.Pool({ connectionString: bench.serverEnv.DATABASE_URL })
      : null;
  const inner = pool ? new PostgresDialect({ pool }) : new PGliteDialect({ pglite: bench.handle.pglite! });
  const db = new Kysely<Database>({ dialect: explainingDialect(inner, recorder) }) as Db;
  const app: FastifyInstance = await buildApp({
    config: parseConfig(env),
    database: { ...bench.handle, db },
    db,
    secrets: BENCH_SECRETS,
  });
  const send = async (request: BenchRequest) => {
    const { path, body } = nextOf(request);
    const res = await app.inject({
      method: request.method,
      url: path,
      headers: request.headers,
      payload: body,
    });
    if (res.statusCode < 200 || res.statusCode > 299)
      throw new Error(`${request.method} ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    request.onResponse?.(res.statusCode, res.body);
    return res.body;
  };
  return {
    send,
    async measure(request) {
      // A first request may start work of its own (the listing a product read warms): let it end,
      // so the measured request runs what a request runs once the route is warm.
      await send(request);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      await send(request);
      recorder.times = [];
      recorder.on = true;
      try {
        await send(request);
      } finally {
        recorder.on = false;
      }
      return { ms: recorder.times.reduce((a, b) => a + b, 0), queries: recorder.times.length };
    },
    async close() {
      await app.close();
      // The embedded instance belongs to the bench database handle: only a pool of our own is closed.
      if (pool) await db.destroy();
    },
  };
}
