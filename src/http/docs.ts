// The OpenAPI 3.1 document, generated from the route schemas (GET /openapi.json), and the
// Scalar reference at /docs (docs-reference.ts). Installed before any route so @fastify/swagger sees them all.
// The page loads Scalar's script from this server (bundled in the package) and the document
// from /openapi.json: nothing is fetched from another host (no CDN, fonts or telemetry).
import { readFileSync } from 'node:fs';
import fastifySwagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { describeRoute } from './docs-operation.ts';
import { installReference } from './docs-reference.ts';
import { componentSchemas } from './schema-names.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

const SCOPES = {
  'products:read':
    'Read products and categories (GET /v1/products, GET /v1/products/{productId}, GET /v1/products/{productId}/history).',
  'products:write': 'Create and edit products, bulk edit, channel availability.',
  'menu:read': 'Read the menu with effective price and availability per channel.',
  'financial:read': 'List financial entries (cash flows).',
  'nfe-received:read': 'List received NF-e and read one in detail.',
  'webhooks:read': 'List webhook endpoints and their deliveries; application events in the feed.',
  'webhooks:write': 'Create, test and delete webhook endpoints and rotate their secrets.',
};

const DESCRIPTION = `Back-office API for restaurants: catalog, menu, cash flows and received NF-e.

**Authentication.** Exchange an API key at \`POST /oauth/token\` (\`grant_type=api_key\`, form-encoded)
for an access token (\`expires_in\` seconds, 900 by default) and a single-use refresh token. Send the
access token as \`Authorization: Bearer <token>\` on \`/v1/*\`. Refresh about 60 s before expiry with
\`grant_type=refresh_token\`; send each refresh token once only: a reused one revokes the whole
family. A verified restaurant session is also accepted as a Bearer, limited to its restaurant.

**Restaurant.** A credential for one restaurant needs nothing more; a partner credential for several
must pass \`restaurant_id\` in the query of every data route (never in the body).

**Errors.** Every error of \`/v1/*\` is \`{statusCode, message, key}\` (validation errors add
\`errors: [{field, message}]\`) with an \`X-Error-Id\` header to quote to support. The token endpoint
answers RFC 6749 \`{error, error_description}\`.

**Retries.** Reads may be retried on 429 (after \`Retry-After\`), 502 and 503. A write (POST, PUT,
PATCH) sent with an \`Idempotency-Key\` header may be retried with the same key: within 24 h the
same request replays the first answer (\`Idempotent-Replayed: true\`) and writes nothing. Without
a key, a write with an uncertain outcome must not be retried blindly: re-read first. The \`test\`
API key prefix is not a sandbox: it changes real data.`;

const TAGS = [
  { name: 'oauth', description: 'Token endpoint (no /v1 prefix) and installed-application approval.' },
  { name: 'products', description: 'Product writes and reads, with the fiscal projection.' },
  { name: 'menu', description: 'The menu with price and availability resolved per channel.' },
  { name: 'financial', description: 'Financial entries (payables and receivables) by period.' },
  {
    name: 'nfe-received',
    description:
      "Received NF-e: the restaurant's brands, the list from the local base, the detail enriched by the provider.",
  },
  { name: 'Events', description: 'The event feed in commit order and signed webhooks (Standard Webhooks).' },
];

export async function installDocs(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'comanda API',
        version: pkg.version,
        description: DESCRIPTION,
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: `http://${config.host}:${config.port}`, description: 'This server (HOST, PORT)' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description:
              'API keys use the custom grant `grant_type=api_key` at the same token URL; the flows below are for applications.',
            flows: {
              clientCredentials: { tokenUrl: '/oauth/token', scopes: SCOPES },
              authorizationCode: {
                authorizationUrl: '/oauth/authorize',
                tokenUrl: '/oauth/token',
                scopes: SCOPES,
              },
            },
          },
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'An access token (`cat_…`) or a restaurant session, which carries no scopes.',
          },
        },
      },
    },
    convertConstToEnum: false,
    transform: describeRoute as never,
    // The named resources, gathered once every route (and so every schema) is known.
    transformObject: ((document: { openapiObject: Record<string, any> }) => {
      const { openapiObject } = document;
      return { ...openapiObject, components: { ...openapiObject.components, schemas: componentSchemas() } };
    }) as never,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  installReference(app);
}
