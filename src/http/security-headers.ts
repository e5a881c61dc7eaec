// Headers every response carries, errors and 404s included (onSend). A route that sets one
// itself keeps its value: the console's pages send the CSP and Referrer-Policy they were
// written against.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const SECURITY_ENTRIES = Object.entries(SECURITY_HEADERS);

/** JSON (and every other non-page answer): nothing to run, nothing to load, never framed. */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The Scalar reference at /docs: its bundled script and inline start-up script, the styles it
 * injects, data: fonts and images, and /openapi.json from this origin. Nothing from elsewhere.
 */
export const DOCS_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Tokens and data are never stored by a browser or a shared cache. */
const NO_STORE = /^\/(v1|oauth)\//;

function policyFor(request: FastifyRequest, reply: FastifyReply): string {
  const type = String(reply.getHeader('content-type') ?? '');
  return type.startsWith('text/html') && request.url.startsWith('/docs') ? DOCS_POLICY : API_POLICY;
}

export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    for (const [name, value] of SECURITY_ENTRIES) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    if (NO_STORE.test(request.url) && !reply.hasHeader('cache-control'))
      reply.header('cache-control', 'no-store');
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', policyFor(request, reply));
    }
    done(null, payload);
  });
}
