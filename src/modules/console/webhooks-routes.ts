// /console/webhooks: the endpoints with their recent deliveries, and "Send test event".
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../http/errors.ts';
import { endpointDeliveries, listEndpoints, sendTestEvent } from '../webhooks/endpoint-service.ts';
import { sendMessage, sendPage } from './layout.ts';
import { webhooksBody } from './webhooks-pages.ts';

const EndpointParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const ListQuery = Type.Object({ tested: Type.Optional(Type.Integer({ minimum: 1 })) });
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
    const tested = (request.query as { tested?: number }).tested;
    const message = tested
      ? `A test event was queued for endpoint ${tested}: it shows below once sent.`
      : undefined;
    const body = webhooksBody(staff, endpoints, message);
    return sendPage(reply, 200, { title: 'Webhooks', staff, section: 'webhooks', body });
  });

  app.post(
    '/webhooks/:id/test',
    { schema: { hide: true, params: EndpointParams } },
    async (request, reply) => {
      const staff = request.staff!;
      const id = (request.params as { id: number }).id;
      try {
        await sendTestEvent(db, staff.restaurant.id, id);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const title = err.statusCode === 404 ? 'Not found' : 'Not sent';
        return sendMessage(reply, err.statusCode, title, err.message, staff);
      }
      request.log.info(
        { webhook_endpoint_id: id, staff_user_id: staff.staffUserId },
        'webhook test sent from the console',
      );
      return reply.redirect(`/console/webhooks?tested=${id}`, 303);
    },
  );
}
