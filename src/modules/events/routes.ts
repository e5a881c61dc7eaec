// GET /v1/events (any read scope; each credential sees the types of the resources it may read).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { versionTag } from '../../http/conditional.ts';
import { sendJson } from '../../http/json-reply.ts';
import { decodeCursor } from './cursor.ts';
import { FEED_SCOPES } from './event-types.ts';
import { createEventFeedReader } from './feed-cache.ts';
import { requestedTypes } from './feed-service.ts';
import { EventsPage, EventsQuery, type EventsQueryInput } from './schemas.ts';

export async function eventRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const readFeed = createEventFeedReader(app.ctx.db, app.ctx.config.cacheBytes.eventFeed);
  const retentionDays = app.ctx.config.eventsRetentionDays;
  // The types as the feed reads them (absent: all readable; sorted, each once), with the cursor and
  // limit: one tag per answer.
  const eventsVersion = versionTag('events_version', (request) => {
    const { types, after, limit } = request.query as EventsQueryInput;
    return { after, limit, types: requestedTypes(request.principal!, types).join(',') };
  });
  app.get(
    '/v1/events',
    {
      config: {
        scope: FEED_SCOPES,
        // Besides events_version and the query: the types this credential sees (its scopes), and
        // the cursor, checked first (a legacy one expires with age, which no version tells).
        etag: async (request) => {
          const query = request.query as EventsQueryInput;
          if (query.after !== undefined) decodeCursor(query.after, retentionDays, request.restaurantId);
          return eventsVersion(request);
        },
      },
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: "The restaurant's events in commit order, by pages",
        description:
          'Events of the last EVENTS_RETENTION_DAYS days (30 by default), oldest first, in the order their ' +
          'transactions committed: a cursor never skips an event committed later. Pass `next_cursor` as ' +
          '`after` to read on (poll with it when `has_more` is false). `types` filters; a credential sees ' +
          'product and menu events with products:read or menu:read, nfe_received.created with ' +
          'nfe-received:read, cash_flows.updated with financial:read, app.* with webhooks:read. A cursor ' +
          'after which the purge deleted an event of the asked types is 400 invalid_query (expired); a ' +
          'cursor does not expire with age.',
        querystring: EventsQuery,
        response: { 200: EventsPage },
      },
    },
    async (request, reply) => {
      const page = await readFeed(request.restaurant, request.principal!, request.query, retentionDays);
      // A page the xmin rule held an event back from grows with no write: it has no tag to keep.
      if (!page.final) reply.removeHeader('etag');
      return sendJson(reply, page.body);
    },
  );
}
