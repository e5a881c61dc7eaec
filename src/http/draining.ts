// A stop begins by draining (app.drain(), called by src/server.ts): from then on every request, on
// a new or a kept-alive connection, is answered 503 service_unavailable with Retry-After and
// Connection: close, and the requests already running finish with Connection: close on their
// answers. A client therefore gets an answer on every connection it holds instead of finding it
// closed under a request it has just sent. Fastify's own 503 while closing has neither the error
// model nor Retry-After, so app.ts turns it off (return503OnClosing) and this hook answers
// instead, app.close() included. Each of these answers is logged at info, without a stack: an
// expected part of a stop, not a fault.
import type { FastifyInstance } from 'fastify';
import { errors } from './errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Every request from now on is refused with 503, Retry-After and Connection: close. */
    drain(): void;
  }
}

const draining = new WeakSet<FastifyInstance>();

export function installDraining(app: FastifyInstance): void {
  app.decorate('drain', () => {
    draining.add(app);
  });
  app.addHook('onRequest', async (_request, reply) => {
    if (!draining.has(app)) return;
    reply.header('connection', 'close');
    throw errors.shuttingDown();
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (draining.has(app)) reply.header('connection', 'close');
    return payload;
  });
  app.addHook('preClose', (done) => {
    draining.add(app);
    done();
  });
}
