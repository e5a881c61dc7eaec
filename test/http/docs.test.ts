import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { describeRoute } from '../../src/http/docs-operation.ts';
import { buildTestApp } from '../support/app.ts';
import { resolve } from '../support/openapi.ts';

const CONTRACT_ROUTES = [
  ['get', '/v1/products', 'products:read'],
  ['get', '/v1/products/{productId}', 'products:read'],
  ['post', '/v1/products', 'products:write'],
  ['put', '/v1/products/{productId}', 'products:write'],
  ['put', '/v1/products/bulk', 'products:write'],
  ['patch', '/v1/products/{productId}/availability', 'products:write'],
  ['get', '/v1/menu', 'menu:read'],
  ['get', '/v1/financial/cash-flows', 'financial:read'],
  ['get', '/v1/nfe-received', 'nfe-received:read'],
  ['get', '/v1/nfe-received/info/{nfe_received_id}', 'nfe-received:read'],
  ['post', '/v1/webhook-endpoints', 'webhooks:write'],
  ['get', '/v1/webhook-endpoints', 'webhooks:read'],
  ['get', '/v1/webhook-endpoints/{webhookEndpointId}', 'webhooks:read'],
  ['delete', '/v1/webhook-endpoints/{webhookEndpointId}', 'webhooks:write'],
  ['get', '/v1/webhook-endpoints/{webhookEndpointId}/deliveries', 'webhooks:read'],
  ['post', '/v1/webhook-endpoints/{webhookEndpointId}/test', 'webhooks:write'],
  ['post', '/v1/webhook-endpoints/{webhookEndpointId}/rotate-secret', 'webhooks:write'],
] as const;

/** Route-specific keys of contract 7, where the document must name them. */
const ROUTE_KEYS: [string, string, string, string][] = [
  ['get', '/v1/products/{productId}', '404', 'product_not_found'],
  ['put', '/v1/products/{productId}', '404', 'product_not_found'],
  ['put', '/v1/products/{productId}', '404', 'product_category_not_found'],
  ['put', '/v1/products/{productId}', '409', 'product_update_conflict'],
  ['put', '/v1/products/{productId}', '400', 'product_changes_required'],
  ['put', '/v1/products/bulk', '409', 'product_update_conflict'],
  ['put', '/v1/products/bulk', '400', 'duplicate_product_ids'],
  ['put', '/v1/products/bulk', '404', 'product_not_found'],
  ['post', '/v1/products', '404', 'product_category_not_found'],
  ['patch', '/v1/products/{productId}/availability', '404', 'product_not_found'],
  ['get', '/v1/nfe-received', '404', 'brand_not_found'],
  ['get', '/v1/nfe-received/info/{nfe_received_id}', '404', 'nfe_not_found'],
  ['get', '/v1/nfe-received/info/{nfe_received_id}', '502', 'fiscal_upstream_error'],
  ['get', '/v1/nfe-received/info/{nfe_received_id}', '503', 'fiscal_not_configured'],
  ['get', '/v1/nfe-received/info/{nfe_received_id}', '500', 'data_validation_failed'],
];

function extraRoute(app: FastifyInstance) {
  app.get(
    '/v1/docs-probe/:probeId',
    {
      config: { scope: 'menu:read', errorKeys: ['brand_not_found'] },
      schema: {
        summary: 'A probe',
        operationId: 'getDocsProbe',
        params: Type.Object({ probeId: Type.Integer({ description: 'The probe.' }) }),
        querystring: Type.Object({ restaurant_id: Type.Optional(Type.Integer()) }),
        response: { 200: Type.Object({ ok: Type.Boolean() }) },
      },
    },
    async () => ({ ok: true }),
  );
}

test('the OpenAPI document and the reference page', async (t) => {
  const { app } = await buildTestApp(t, { routes: extraRoute });
  const res = await app.inject('/openapi.json');
  const doc = res.json();
  const op = (method: string, path: string) => doc.paths[path]?.[method];
  /** The keys (or OAuth error codes) an error response names. */
  const keysOf = (response: any): string[] => {
    const properties = resolve(doc, response?.content?.['application/json']?.schema)?.properties ?? {};
    return (properties.key ?? properties.error)?.enum ?? [];
  };

  await t.test('GET /openapi.json answers an OpenAPI 3.1 document as JSON', () => {
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(doc.openapi, '3.1.0');
  });

  await t.test('every contract route is documented with its scope, OAuth 2 or Bearer', () => {
    for (const [method, path, scope] of CONTRACT_ROUTES) {
      assert.ok(op(method, path), `${method} ${path} is missing`);
      assert.deepEqual(op(method, path).security, [{ oauth2: [scope] }, { bearer: [] }], `${method} ${path}`);
      assert.ok(op(method, path).summary, `${method} ${path} has no summary`);
    }
  });

  await t.test('the security schemes name the token URL, the seven scopes and Bearer', () => {
    const { oauth2, bearer } = doc.components.securitySchemes;
    assert.equal(oauth2.flows.clientCredentials.tokenUrl, '/oauth/token');
    assert.deepEqual(Object.keys(oauth2.flows.clientCredentials.scopes).sort(), [
      'financial:read',
      'menu:read',
      'nfe-received:read',
      'products:read',
      'products:write',
      'webhooks:read',
      'webhooks:write',
    ]);
    assert.deepEqual({ type: bearer.type, scheme: bearer.scheme }, { type: 'http', scheme: 'bearer' });
  });

  await t.test('the event feed takes any read scope and the Events routes carry their operationIds', () => {
    const feed = op('get', '/v1/events');
    assert.deepEqual(feed.security, [
      { oauth2: ['products:read'] },
      { oauth2: ['menu:read'] },
      { oauth2: ['nfe-received:read'] },
      { oauth2: ['financial:read'] },
      { oauth2: ['webhooks:read'] },
      { bearer: [] },
    ]);
    const ids = Object.values<any>(doc.paths)
      .flatMap((item) => Object.values<any>(item))
      .filter((operation) => operation.tags?.includes('Events'))
      .map((operation) => operation.operationId)
      .sort();
    assert.deepEqual(ids, [
      'createWebhookEndpoint',
      'deleteWebhookEndpoint',
      'enableWebhookEndpoint',
      'getWebhookEndpoint',
      'listEvents',
      'listWebhookDeliveries',
      'listWebhookEndpoints',
      'rotateWebhookSecret',
      'testWebhookEndpoint',
    ]);
    assert.ok(doc.tags.some((tag: { name: string }) => tag.name === 'Events'));
  });

  await t.test('every data route documents 401, 403, 429 with their keys, X-Error-Id and Retry-After', () => {
    for (const [method, path] of CONTRACT_ROUTES) {
      const { responses } = op(method, path);
      assert.deepEqual(keysOf(responses['401']), ['invalid_token'], `${method} ${path}`);
      assert.deepEqual(keysOf(responses['403']).sort(), ['insufficient_scope', 'restaurant_forbidden']);
      assert.deepEqual(keysOf(responses['429']), ['rate_limited']);
      assert.ok(responses['429'].headers['Retry-After']);
      assert.ok(keysOf(responses['400']).includes('restaurant_id_required'), `${method} ${path}`);
      assert.ok(responses['401'].headers['WWW-Authenticate']);
    }
  });

  await t.test(
    'every error response has the {statusCode, message, key} body, X-Error-Id and an example per key',
    () => {
      for (const [path, item] of Object.entries<any>(doc.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          for (const [status, response] of Object.entries<any>(operation.responses)) {
            if (!/^[45]/.test(status)) continue;
            const where = `${method} ${path} ${status}`;
            assert.ok(response.headers?.['X-Error-Id'], `${where}: X-Error-Id`);
            const media = response.content['application/json'];
            const required = path.startsWith('/oauth/')
              ? ['error', 'error_description']
              : ['statusCode', 'message', 'key'];
            for (const member of required)
              assert.ok(resolve(doc, media.schema).required.includes(member), `${where}: ${member}`);
            assert.ok(keysOf(response).length > 0, `${where}: no key named`);
            assert.deepEqual(Object.keys(media.examples).sort(), [...keysOf(response)].sort(), where);
          }
        }
      }
    },
  );

  await t.test('validation errors are documented with the keys of the parts each route has', () => {
    assert.ok(keysOf(op('post', '/v1/products').responses['400']).includes('invalid_body'));
    assert.ok(keysOf(op('put', '/v1/products/{productId}').responses['400']).includes('invalid_parameter'));
    assert.ok(keysOf(op('get', '/v1/financial/cash-flows').responses['400']).includes('invalid_query'));
    assert.ok(!keysOf(op('get', '/v1/menu').responses['400']).includes('invalid_body'));
    const example = op('post', '/v1/products').responses['400'].content['application/json'].examples
      .invalid_body;
    assert.equal(example.value.errors[0].field, 'name');
  });

  await t.test('each route names its own error keys (contract 7)', () => {
    for (const [method, path, status, key] of ROUTE_KEYS) {
      assert.ok(
        keysOf(op(method, path).responses[status]).includes(key),
        `${method} ${path} ${status} ${key}`,
      );
    }
  });

  await t.test('parameters keep their rules: required dates, enums, path ids, restaurant_id', () => {
    const params = (method: string, path: string) =>
      Object.fromEntries(op(method, path).parameters.map((p: any) => [`${p.in}:${p.name}`, p]));
    const cash = params('get', '/v1/financial/cash-flows');
    assert.equal(cash['query:start_date'].required, true);
    assert.equal(cash['query:end_date'].required, true);
    assert.deepEqual(cash['query:date_type'].schema.enum, ['due_date', 'competence_date']);
    assert.equal(cash['query:offset'].required, false);
    const menu = params('get', '/v1/menu');
    assert.deepEqual(menu['query:channel'].schema.enum, ['in_store', 'delivery']);
    assert.equal(params('put', '/v1/products/{productId}')['path:productId'].required, true);
    for (const [method, path] of CONTRACT_ROUTES) {
      assert.ok(params(method, path)['query:restaurant_id'], `${method} ${path}: restaurant_id`);
    }
  });

  await t.test('the bulk edit body is a bare array of 1 to 100 objects with an id', () => {
    const schema = op('put', '/v1/products/bulk').requestBody.content['application/json'].schema;
    assert.equal(schema.type, 'array');
    assert.deepEqual([schema.minItems, schema.maxItems], [1, 100]);
    assert.ok(resolve(doc, schema.items).required.includes('id'));
    const conflict = op('put', '/v1/products/bulk').responses['409'].content['application/json'];
    assert.equal(resolve(doc, conflict.schema).properties.conflicts.type, 'array');
    assert.equal(conflict.examples.product_update_conflict.value.conflicts[0].index, 0);
  });

  await t.test('the token endpoint: form body per grant, no /v1, no security, RFC 6749 errors', () => {
    const token = op('post', '/oauth/token');
    assert.deepEqual(token.security, []);
    const form = token.requestBody.content['application/x-www-form-urlencoded'].schema;
    const grants = Object.fromEntries(form.oneOf.map((g: any) => [g.properties.grant_type.const, g]));
    assert.deepEqual(grants.api_key.required, ['grant_type', 'api_key']);
    assert.deepEqual(Object.keys(grants.refresh_token.properties).sort(), [
      'client_id',
      'grant_type',
      'refresh_token',
    ]);
    assert.ok(keysOf(token.responses['400']).includes('invalid_grant'));
    assert.ok(keysOf(token.responses['400']).includes('invalid_scope'));
    assert.deepEqual(keysOf(token.responses['401']), ['invalid_client']);
    assert.ok(token.responses['200'].headers['Cache-Control']);
    // With a refresh token, and without one (client_credentials), both in contract 2.5's order.
    const shapes = resolve(doc, token.responses['200'].content['application/json'].schema).anyOf;
    assert.deepEqual(
      shapes.map((shape: any) => Object.keys(shape.properties)),
      [
        ['access_token', 'token_type', 'expires_in', 'refresh_token', 'scope'],
        ['access_token', 'token_type', 'expires_in', 'scope'],
      ],
    );
  });

  await t.test('a route declares only its scope and own keys; security and errors follow', () => {
    const probe = op('get', '/v1/docs-probe/{probeId}');
    assert.deepEqual(probe.security, [{ oauth2: ['menu:read'] }, { bearer: [] }]);
    assert.deepEqual(keysOf(probe.responses['404']), ['brand_not_found']);
    assert.ok(keysOf(probe.responses['400']).includes('invalid_parameter'));
    assert.equal(probe.parameters.find((p: any) => p.name === 'probeId').description, 'The probe.');
  });

  await t.test('an error key missing from the catalogue stops the document', () => {
    const route = { method: 'GET', url: '/v1/x', config: { scope: 'menu:read', errorKeys: ['no_such_key'] } };
    assert.throws(() => describeRoute({ schema: {}, url: '/v1/x', route: route as never }), /no_such_key/);
  });

  await t.test('health, readiness, metrics and the docs themselves are not in the document', () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/']) {
      assert.equal(doc.paths[path], undefined, path);
    }
    assert.ok(Object.keys(doc.paths).every((path) => !path.startsWith('/docs')));
  });

  await t.test('/docs serves the reference page with Scalar from this server, no external host', async () => {
    const redirect = await app.inject('/docs');
    assert.equal(redirect.statusCode, 301);
    assert.equal(redirect.headers.location, '/docs/');
    const page = await app.inject('/docs/');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const scripts = [...page.body.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(scripts, ['/docs/js/scalar.js']);
    assert.doesNotMatch(page.body, /https?:\/\//);
    assert.match(page.body, /"url": "\/openapi\.json"/);
    assert.match(page.body, /"withDefaultFonts": false/);
    const script = await app.inject('/docs/js/scalar.js');
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /javascript/);
    assert.ok(script.body.length > 100_000);
  });

  await t.test(
    "a path under /docs the reference does not have is the API's 404, with X-Error-Id",
    async () => {
      const res = await app.inject('/docs/no-such-page');
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['x-error-id']), /^[0-9a-f-]{36}$/);
      assert.deepEqual(res.json(), {
        statusCode: 404,
        message: 'No route GET /docs/no-such-page.',
        key: 'route_not_found',
      });
    },
  );
});
