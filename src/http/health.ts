// /healthz: the process answers. /readyz: the database answers (503 otherwise). The probes that
// arrive while a ping waits share it: /readyz needs no credential, and a flood of it takes one
// pool connection, not one each from the routes.
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../db/database.ts';
import { errors } from './errors.ts';

export function installHealth(app: FastifyInstance, database: DatabaseHandle): void {
  let pinging: Promise<void> | undefined;
  const ping = () => {
    pinging ??= withTimeout(database.ping(), 2000).finally(() => {
      pinging = undefined;
    });
    return pinging;
  };
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request) => {
    try {
      await ping();
    } catch (err) {
      request.log.warn({ err }, 'database not ready');
      throw errors.serviceUnavailable();
    }
    return { status: 'ready', database: database.kind };
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms);
    }),
  ]);
}
