// /healthz: the process answers. /readyz: the database answers (503 otherwise).
import type { FastifyInstance } from 'fastify';
import type { DatabaseHandle } from '../db/database.ts';
import { errors } from './errors.ts';

export function installHealth(app: FastifyInstance, database: DatabaseHandle): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request) => {
    try {
      await withTimeout(database.ping(), 2000);
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
