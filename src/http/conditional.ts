// Conditional reads (RFC 9110 8.8.3, 13.1.2). A route opts in with `config.etag`: a function of
// the request that names what its answer depends on (a data version read with the token, the
// query's canonical form, for the menu the schedule window). The tag is a hash of that name, the
// route and the restaurant: it is never derived from a rendered body, so a matching
// If-None-Match is answered 304 before the handler runs, without rendering anything. The hash is
// keyed (SHA-256 of a key, then the name) by a key derived from the server's secret, the same on
// every instance: the versions are sequences shared by every restaurant, and a plain hash would let
// a tenant recover them from its tags and count the other tenants' writes. Not createHmac, which
// costs 26 µs a call here against 2.5 µs (OpenSSL 3 sets an HMAC up anew each time); a tag needs
// to hide its name, not to resist forgery (a forged tag can only win its sender a 304).
//
// A 304 spends no rate-limit budget (GitHub's rule for conditional requests): authenticate.ts
// leaves the budget of a request carrying If-None-Match to this hook, which spends it on any
// other answer and only shows it (X-RateLimit-*, unchanged) on a 304.
//
// A body sent content-coded (br or gzip: compression.ts, @fastify/compress) is another
// representation than the identity body, so it carries a strong tag of its own: the same name with
// the coding appended, `"x-gzip"`, `"x-br"` (RFC 9110 8.8.3; Apache's mod_deflate does the same).
// The coding is final only after @fastify/compress's onSend, a route hook: this module's onSend
// is added to each tagged route after it (app.ts installs compression first). If-None-Match
// matches any coding's tag of the current name, weak or strong: the client holds the same content
// decoded. A 304 answered before the handler cannot know whether its 200 would be coded (that
// depends on the body's size): it carries the tag as the request sent it, the tag of what the
// client holds.
//
// `*` matches only a representation that exists (RFC 9110 13.1.2): the handler runs, and its 2xx
// becomes a 304 in onSend, with the tag its 200 would carry (a read, so it spends its budget).
// An error answer carries no tag.
import { createHash, createHmac } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RestaurantState } from '../db/restaurant-state.ts';
import { showBudget, spendBudget } from './authenticate.ts';
import { ENCODINGS } from './compression.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** What the answer depends on; undefined sends the answer without a tag. */
    etag?: (request: FastifyRequest) => Promise<string | undefined>;
  }
  interface FastifyRequest {
    /** The rate-limit hit this request still owes: set when it came with If-None-Match. */
    budgetDeferred: boolean;
  }
}

/** The tag of a body sent in `coding`: the name of `tag` with the coding appended, strong still. */
export const codedTag = (tag: string, coding: string): string => `${tag.slice(0, -1)}-${coding}"`;

/**
 * If-None-Match's weak comparison against a strong `tag` and its coded forms: the first listed
 * item equal to one of them once `W/` is dropped, as listed, or `*` (unless `any` is false);
 * undefined when none matches.
 */
export function noneMatch(header: string, tag: string, any = true): string | undefined {
  const forms = [tag, ...ENCODINGS.map((coding) => codedTag(tag, coding))];
  for (const item of header.split(',')) {
    const candidate = item.trim();
    if (any && candidate === '*') return candidate;
    if (forms.includes(candidate.startsWith('W/') ? candidate.slice(2) : candidate)) return candidate;
  }
  return undefined;
}

const digest = (text: string, length: number) =>
  createHash('sha256').update(text).digest('base64url').slice(0, length);

const shapes = new WeakMap<object, string>();

/**
 * The route and the shape of its answers (its response schemas, hashed once per route): a release
 * that changes what a route sends changes its tags, so no client keeps a body of the old shape.
 */
function routeIdentity(request: FastifyRequest): string {
  const schema = (request.routeOptions.schema?.response ?? {}) as object;
  let shape = shapes.get(schema);
  if (shape === undefined) {
    shape = digest(JSON.stringify(schema), 16);
    shapes.set(schema, shape);
  }
  return `${request.routeOptions.url ?? request.url}\n${shape}`;
}

/**
 * The request's path parameters and query, in a form independent of their order: the validated
 * query (schema defaults applied), or what `normalise` makes of it when the route applies defaults
 * or reads equivalent spellings itself (date_type absent is due_date, offset absent is 0): two
 * requests its answer cannot tell apart must get one tag, or a client switching spelling gets a 200
 * where a 304 was due.
 */
function canonicalRequest(request: FastifyRequest, normalise?: (request: FastifyRequest) => unknown): string {
  const entries = (value: unknown) =>
    Object.entries((value ?? {}) as Record<string, unknown>)
      .filter(([name, v]) => v !== undefined && name !== 'restaurant_id')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const query = normalise ? normalise(request) : request.query;
  return JSON.stringify([entries(request.params), entries(query)]);
}

/**
 * A route's `etag` for an answer that depends only on one version of the restaurant's data and
 * the request's query (as `normalise` reads it, when given) and parameters.
 */
export const versionTag =
  (
    column: 'catalog_version' | 'cash_flow_version' | 'nfe_version' | 'events_version',
    normalise?: (request: FastifyRequest) => unknown,
  ) =>
  async (request: FastifyRequest): Promise<string | undefined> => {
    // The query first: a query the route refuses is refused here as in its handler.
    const canonical = canonicalRequest(request, normalise);
    const state: RestaurantState | undefined = await request.restaurant.state();
    return state && `${column}=${state[column]}\n${canonical}`;
  };

async function settle(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (!request.budgetDeferred) return;
  request.budgetDeferred = false;
  await spendBudget(request, reply);
}

export function installConditionalRequests(app: FastifyInstance, secret: string): void {
  const key = createHmac('sha256', secret).update('comanda etag').digest();
  const strongTag = (route: string, restaurantId: number, dependsOn: string): string =>
    `"${createHash('sha256').update(key).update(`${route}\n${restaurantId}\n${dependsOn}`).digest('base64url').slice(0, 27)}"`;
  app.decorateRequest('budgetDeferred', false);
  app.addHook('preHandler', async (request, reply) => {
    const etag = request.routeOptions.config?.etag;
    if (!etag) return;
    const dependsOn = await etag(request);
    if (dependsOn !== undefined) {
      const tag = strongTag(routeIdentity(request), request.restaurantId, dependsOn);
      reply.header('etag', tag);
      const condition = request.headers['if-none-match'];
      // `*` matches only a representation that exists, which the handler's answer tells (onSend).
      const held = condition === undefined ? undefined : noneMatch(condition, tag, false);
      if (held !== undefined) {
        request.budgetDeferred = false;
        await showBudget(request, reply);
        return reply.code(304).header('etag', held).send();
      }
    }
    await settle(request, reply);
  });
  // The last onSend of a tagged route, where the body's coding is final.
  app.addHook('onRoute', (route) => {
    if (route.config?.etag) route.onSend = [route.onSend ?? []].flat().concat(finalTag);
  });
}

async function finalTag(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  // A conditional request answered otherwise before the handler (a refused scope, a bad query)
  // spends its budget as any other request; the answer is already chosen, so it only counts.
  if (request.budgetDeferred) await settle(request, reply).catch(() => {});
  const tag = reply.getHeader('etag');
  if (typeof tag !== 'string' || reply.statusCode === 304) return payload;
  // An error (a 404: no such product) describes no representation: it has no tag (sent back,
  // it would be a 304 for what does not exist) and nothing for `*` to match (RFC 9110 13.1.2).
  if (reply.statusCode >= 300) {
    reply.removeHeader('etag');
    return payload;
  }
  const coding = reply.getHeader('content-encoding');
  if (typeof coding === 'string' && coding !== 'identity') reply.header('etag', codedTag(tag, coding));
  const condition = request.headers['if-none-match'];
  if (condition === undefined || noneMatch(condition, tag) === undefined) return payload;
  // `*` and a representation that exists: a 304 (its budget is spent: the answer was read).
  if (payload instanceof Readable) payload.destroy();
  reply
    .code(304)
    .removeHeader('content-length')
    .removeHeader('content-type')
    .removeHeader('content-encoding');
  return null;
}
