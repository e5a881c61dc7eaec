// /console/keys: list, create (the key shown once), revoke with a confirmation step.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { keyCreatedBody, keysListBody, newKeyBody, revokeKeyBody } from './keys-pages.ts';
import {
  createKey,
  keyFormProblems,
  readKeyForm,
  restaurantKey,
  restaurantKeys,
  revokeKey,
} from './keys-service.ts';
import { sendMessage, sendPage } from './layout.ts';
import { formOf } from './navigation.ts';

const KeyParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const ListQuery = Type.Object({ revoked: Type.Optional(Type.Integer({ minimum: 1 })) });

export function keyRoutes(app: FastifyInstance): void {
  const db = app.ctx.db;

  app.get('/keys', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const staff = request.staff!;
    const keys = await restaurantKeys(db, staff.restaurant.id);
    // Named as the list shows it (ids are not shown); a key that is not listed gets no message.
    const revoked = keys.find((k) => k.id === (request.query as { revoked?: number }).revoked);
    const message = revoked ? `“${revoked.name}” revoked: its access tokens no longer work.` : undefined;
    return sendPage(reply, 200, {
      title: 'API keys',
      staff,
      section: 'keys',
      body: keysListBody(staff, keys, message),
    });
  });

  app.get('/keys/new', { schema: { hide: true } }, async (request, reply) => {
    const staff = request.staff!;
    const values = { name: '', scopes: [], restaurantIds: [staff.restaurant.id], environment: 'live' };
    return sendPage(reply, 200, {
      title: 'New API key',
      staff,
      section: 'keys',
      body: newKeyBody(staff, values),
    });
  });

  app.post('/keys', { schema: { hide: true } }, async (request, reply) => {
    const staff = request.staff!;
    const input = readKeyForm(formOf(request));
    const problems = keyFormProblems(staff, input);
    if (Object.keys(problems).length) {
      const body = newKeyBody(staff, input, problems);
      return sendPage(reply, 400, { title: 'New API key', staff, section: 'keys', body });
    }
    const key = await createKey(db, input);
    request.log.info(
      { api_key_id: key.id, staff_user_id: staff.staffUserId },
      'api key created in the console',
    );
    const body = keyCreatedBody(key.apiKey, input.name);
    return sendPage(reply, 201, { title: 'API key created', staff, section: 'keys', body });
  });

  app.get('/keys/:id/revoke', { schema: { hide: true, params: KeyParams } }, async (request, reply) => {
    const staff = request.staff!;
    const key = await restaurantKey(db, staff.restaurant.id, (request.params as { id: number }).id);
    if (!key) return sendMessage(reply, 404, 'Not found', 'This restaurant has no such API key.', staff);
    if (key.status !== 'active')
      return sendMessage(reply, 409, 'Already unusable', `This key is ${key.status}.`, staff);
    return sendPage(reply, 200, {
      title: 'Revoke API key',
      staff,
      section: 'keys',
      body: revokeKeyBody(staff, key),
    });
  });

  app.post('/keys/:id/revoke', { schema: { hide: true, params: KeyParams } }, async (request, reply) => {
    const staff = request.staff!;
    const key = await revokeKey(db, staff.restaurant.id, (request.params as { id: number }).id);
    if (!key) return sendMessage(reply, 404, 'Not found', 'This restaurant has no such API key.', staff);
    request.log.info(
      { api_key_id: key.id, staff_user_id: staff.staffUserId },
      'api key revoked in the console',
    );
    return reply.redirect(`/console/keys?revoked=${key.id}`, 303);
  });
}
