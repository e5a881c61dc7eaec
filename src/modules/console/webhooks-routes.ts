// /console/webhooks: the endpoints with their recent deliveries, "Send test event", and "Enable
// again" for an endpoint that was disabled.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../http/errors.ts';
import {
  enableEndpoint,
  endpointDeliveries,
  listEndpoints,
  sendTestEvent,
} from '../webhooks/endpoint-service.ts';
import type { Staff } from './console-session.ts';
import { sendMessage, sendPage } from './layout.ts';
import { webhooksBody } from './webhooks-pages.ts';

const EndpointParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const ListQuery = Type.Object({
  tested: Type.Optional(Type.Integer({ minimum: 1 })),
  enabled: Type.Optional(Type.Integer({ minimum: 1 })),
});
const RECENT = 10;

export function webhookPages(app: FastifyInstance): void {
  const db = app.ctx.db;

  app.get('/webhooks', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const staff = request.staff!;
    const { data } = await listEndpoints(db, staff.restaurant.id);
    const endpoints = await Promise.all(
      data.map(async (endpoint) => ({
        endpoint,
        deliveries: (await endpointDeliveries(db, staff.restaurant.id, endpoint.id, RECENT)).data,
      })),
    );
    // Endpoints are named by their URL, as the page shows them (ids are not shown).
    const { tested, enabled } = request.query as { tested?: number; enabled?: number };
    const urlOf = (id?: number) => data.find((endpoint) => endpoint.id === id)?.url;
    const message = urlOf(tested)
      ? `A test event was queued for ${urlOf(tested)}: it shows below once sent.`
      : urlOf(enabled)
        ? `${urlOf(enabled)} is enabled again: it gets the events of changes from now on.`
        : undefined;
    const body = webhooksBody(staff, endpoints, message);
    return sendPage(reply, 200, { title: 'Webhooks', staff, section: 'webhooks', body });
  });

  /** A button's POST: the action on the restaurant's endpoint, logged, then back to the list. */
  const button =
    (
      name: 'tested' | 'enabled',
      act: (restaurantId: number, id: number, staff: Staff) => Promise<unknown>,
      done: string,
    ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const staff = request.staff!;
      const id = (request.params as { id: number }).id;
      try {
        await act(staff.restaurant.id, id, staff);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const title = err.statusCode === 404 ? 'Not found' : 'Not sent';
        return sendMessage(reply, err.statusCode, title, err.message, staff);
      }
      request.log.info({ webhook_endpoint_id: id, staff_user_id: staff.staffUserId }, done);
      return reply.redirect(`/console/webhooks?${name}=${id}`, 303);
    };
  const route = { schema: { hide: true, params: EndpointParams } };
  app.post(
    '/webhooks/:id/test',
    route,
    button(
      'tested',
      (restaurantId, id) => sendTestEvent(db, restaurantId, id),
      'webhook test sent from the console',
    ),
  );
  app.post(
    '/webhooks/:id/enable',
    route,
    button(
      'enabled',
      // As the restaurant's session: the endpoint becomes the restaurant's (it has no creator).
      (restaurantId, id, staff) =>
        enableEndpoint(db, restaurantId, id, {
          kind: 'restaurant_session',
          sessionId: staff.sessionId,
          restaurantIds: [restaurantId],
          scopes: [],
        }),
      'webhook endpoint enabled from the console',
    ),
  );
}
