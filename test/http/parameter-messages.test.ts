// Messages a person understands: every route of the app is walked (each route Fastify registers,
// read through its onRoute hook), and every query, path or body parameter with a pattern, an enum
// or a format is sent a wrong value. The answer is a 400 whose message shows no regular
// expression: a pattern is a sentence with an example, a format too, an enum names its values.
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { test } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { SCOPES } from '../../src/http/principal.ts';
import { buildTestApp } from '../support/app.ts';
import { insertRestaurant } from '../support/nfe-world.ts';
import { bearerFor } from '../support/tokens.ts';

type Schema = Record<string, any>;
type Part = 'querystring' | 'params' | 'body';
/** One value to get wrong: where it sits (keys and array items) and the keyword it breaks. */
type Target = { route: RouteOptions; part: Part; path: (string | number)[]; schema: Schema };

const CHECKED = ['pattern', 'enum', 'format'] as const;
/** Text of a regular expression, or Ajv's words for one. */
const REGEX_TEXT =
  /must match pattern|must match format|\^\[|\[0-9\]|\\[dDsSwW]|\(\?[:=!]|\{\d+(,\d*)?\}|\$"/;

/** Every route the app registers, with its options (schema included), collected as it is built. */
async function everyRoute(build: () => Promise<FastifyInstance>): Promise<RouteOptions[]> {
  const routes: RouteOptions[] = [];
  const onInit = (message: unknown) => {
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (route) => {
      routes.push(route);
    });
  };
  subscribe('fastify.initialization', onInit);
  try {
    await build();
  } finally {
    unsubscribe('fastify.initialization', onInit);
  }
  return routes;
}

/** The checked leaves of a schema, each with its path from the part's root. */
function leaves(
  schema: Schema | undefined,
  path: (string | number)[] = [],
): { path: (string | number)[]; schema: Schema }[] {
  if (!schema || typeof schema !== 'object') return [];
  const found: { path: (string | number)[]; schema: Schema }[] = [];
  if (CHECKED.some((keyword) => schema[keyword] !== undefined)) found.push({ path, schema });
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    found.push(...leaves(property, [...path, name]));
  }
  if (schema.items && !Array.isArray(schema.items)) found.push(...leaves(schema.items, [...path, 0]));
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    found.push(...leaves(branch, path));
  }
  return found;
}

/** A value that breaks the leaf's pattern, enum or format. */
function wrongValue(schema: Schema): string {
  if (schema.enum) return 'not-an-allowed-value';
  if (schema.pattern) {
    const pattern = new RegExp(schema.pattern, 'u');
    const wrong = ['not valid', ' ', '', '!!!'].find((candidate) => !pattern.test(candidate));
    assert.ok(wrong !== undefined, `no wrong value for ${schema.pattern}`);
    return wrong;
  }
  return 'not-a-valid-value';
}

/** `value` placed at `path`: objects and arrays around it, as the schema nests them. */
function placed(path: (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  return typeof head === 'number' ? [placed(rest, value)] : { [head]: placed(rest, value) };
}

/** The field name the answer gives the value at `path` (error-handler.ts fieldOf). */
const fieldName = (path: (string | number)[]) =>
  path
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${part}`))
    .join('')
    .replace(/^\./, '');

function request(target: Target, value: string) {
  const { route, part, path } = target;
  let url = route.url;
  if (part === 'params') url = url.replace(`:${path[0]}`, encodeURIComponent(value));
  url = url.replace(/:[A-Za-z_]+/g, '1');
  if (part === 'querystring') url += `?${new URLSearchParams({ [String(path[0])]: value })}`;
  const method = [route.method].flat()[0] as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  return part === 'body' ? { method, url, payload: placed(path, value) as object } : { method, url };
}

test('no answer to a wrong parameter shows a regular expression, on any route', async (t) => {
  let built: Awaited<ReturnType<typeof buildTestApp>> | undefined;
  const routes = await everyRoute(async () => {
    built = await buildTestApp(t);
    return built.app;
  });
  const { app, ctx } = built!;
  const restaurant = await insertRestaurant(ctx.db);
  const { authorization } = await bearerFor(ctx.db, [restaurant], SCOPES);

  const targets: Target[] = routes.flatMap((route) =>
    [route.method].flat().includes('HEAD')
      ? []
      : (['querystring', 'params', 'body'] as const).flatMap((part) =>
          leaves(route.schema?.[part] as Schema | undefined).map((leaf) => ({ route, part, ...leaf })),
        ),
  );
  const names = targets.map((x) => `${[x.route.method].flat()[0]} ${x.route.url} ${fieldName(x.path)}`);
  for (const expected of [
    'GET /v1/nfe-received start_date',
    'GET /v1/nfe-received end_date',
    'GET /v1/menu channel',
    'GET /v1/menu at',
    'GET /v1/financial/cash-flows date_type',
    'GET /v1/financial/cash-flows start_date',
    'POST /v1/products name',
    'PUT /v1/products/bulk [0].name',
    'POST /v1/webhook-endpoints events[0]',
  ]) {
    assert.ok(names.includes(expected), `the walk finds ${expected} (found: ${names.join(', ')})`);
  }

  for (const target of targets) {
    const name = names[targets.indexOf(target)];
    await t.test(`${name}: a wrong value is a 400 that names the rule in words`, async () => {
      const value = wrongValue(target.schema);
      const res = await app.inject({ ...request(target, value), headers: { authorization } });
      assert.equal(res.statusCode, 400, res.body);
      const body = res.json();
      const message: string = body.message ?? body.error_description;
      assert.doesNotMatch(res.body, REGEX_TEXT);
      if (target.schema.pattern) assert.ok(!res.body.includes(target.schema.pattern), 'the pattern itself');
      if (body.error_description) return;
      const field = body.errors.find((e: { field: string }) => e.field === fieldName(target.path));
      assert.ok(field, `an error names ${fieldName(target.path)}: ${res.body}`);
      assert.ok(message.includes(`${field.field} ${field.message}`), message);
      if (target.schema.enum) {
        for (const allowed of target.schema.enum)
          assert.ok(field.message.includes(String(allowed)), field.message);
      } else {
        assert.match(field.message, /, e\.g\. \S/, 'a pattern or a format is explained with an example');
      }
    });
  }
});
