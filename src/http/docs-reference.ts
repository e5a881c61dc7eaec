// The Scalar reference at /docs, loaded on its first request. The package keeps its browser
// bundle as a string in its module (4 MB of source, about 25 MB of the server's memory once
// imported), and most instances never serve the page: so it lives in a small Fastify instance of
// its own, built on demand, and /docs forwards to it in memory.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { errors } from './errors.ts';

/** Everything from this server: the script is the package's own copy, no CDN, fonts or telemetry. */
const CONFIGURATION = {
  url: '/openapi.json',
  cdn: '/docs/js/scalar.js',
  pageTitle: 'comanda API reference',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
};

/** Headers of the reference's answers worth passing on (the security headers are this app's). */
const FORWARDED = ['content-type', 'location', 'content-disposition'];

async function buildReference(): Promise<FastifyInstance> {
  const { default: scalar } = await import('@scalar/fastify-api-reference');
  const reference = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: true } });
  await reference.register(scalar, { routePrefix: '/docs', configuration: CONFIGURATION });
  await reference.ready();
  return reference;
}

export function installReference(app: FastifyInstance): void {
  let reference: Promise<FastifyInstance> | undefined;
  app.addHook('onClose', async () => {
    if (reference) await (await reference.catch(() => null))?.close();
  });
  async function forward(request: FastifyRequest, reply: FastifyReply) {
    reference ??= buildReference().catch((err) => {
      reference = undefined; // the next request tries again
      throw err;
    });
    const answer = await (await reference).inject({ method: 'GET', url: request.url });
    // The reference's own 404 would have Fastify's shape: the API's has a key and an X-Error-Id.
    if (answer.statusCode === 404) throw errors.routeNotFound(request.method, request.url);
    reply.code(answer.statusCode);
    for (const name of FORWARDED) {
      const value = answer.headers[name];
      if (value !== undefined) reply.header(name, value);
    }
    return reply.send(answer.rawPayload);
  }
  const options = { schema: { hide: true }, logLevel: 'warn' as const };
  app.get('/docs', options, forward);
  app.get('/docs/*', options, forward);
}
