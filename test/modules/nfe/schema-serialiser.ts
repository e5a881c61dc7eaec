// The serialiser the NF-e routes used before they wrote their own JSON: Fastify's schema
// serialiser (fast-json-stringify) for the route's response schema, run through a bare app so
// the bytes are the ones a client received. Byte-equality tests compare the new bodies to it.

import Fastify from 'fastify';
import type { TSchema } from 'typebox';

export type Serialised = { statusCode: number; body: string };

/** One app per schema: `serialise(value)` answers what a route returning `value` sent. */
export async function schemaSerialiser(schema: TSchema) {
  const app = Fastify({ logger: false });
  let next: unknown;
  app.get('/', { schema: { response: { 200: schema } } }, async () => next);
  await app.ready();
  return {
    async serialise(value: unknown): Promise<Serialised> {
      next = value;
      const res = await app.inject({ method: 'GET', url: '/' });
      return { statusCode: res.statusCode, body: res.body };
    },
    close: () => app.close(),
  };
}
