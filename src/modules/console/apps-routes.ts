// /console/apps: the applications installed for the restaurant, and removing one.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { appsListBody, removeAppBody } from './apps-pages.ts';
import { findInstalledApp, installedApps, removeApp } from './apps-service.ts';
import { sendMessage, sendPage } from './layout.ts';

const AppParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const ListQuery = Type.Object({ removed: Type.Optional(Type.String()) });

export function appRoutes(app: FastifyInstance): void {
  const db = app.ctx.db;
  const notInstalled = 'No such application is installed for this restaurant.';

  app.get('/apps', { schema: { hide: true, querystring: ListQuery } }, async (request, reply) => {
    const staff = request.staff!;
    const apps = await installedApps(db, staff.restaurant.id);
    const removed = (request.query as { removed?: string }).removed !== undefined;
    const message = removed
      ? 'The application was removed: its tokens for this restaurant no longer work.'
      : undefined;
    return sendPage(reply, 200, {
      title: 'Installed apps',
      staff,
      section: 'apps',
      body: appsListBody(staff, apps, message),
    });
  });

  app.get('/apps/:id/revoke', { schema: { hide: true, params: AppParams } }, async (request, reply) => {
    const staff = request.staff!;
    const found = await findInstalledApp(db, staff.restaurant.id, (request.params as { id: number }).id);
    if (!found) return sendMessage(reply, 404, 'Not found', notInstalled, staff);
    return sendPage(reply, 200, {
      title: 'Remove application',
      staff,
      section: 'apps',
      body: removeAppBody(staff, found),
    });
  });

  app.post('/apps/:id/revoke', { schema: { hide: true, params: AppParams } }, async (request, reply) => {
    const staff = request.staff!;
    const found = await findInstalledApp(db, staff.restaurant.id, (request.params as { id: number }).id);
    if (!found || !(await removeApp(db, found.id, staff.restaurant.id))) {
      return sendMessage(reply, 404, 'Not found', notInstalled, staff);
    }
    request.log.info(
      { oauth_client_id: found.id, staff_user_id: staff.staffUserId },
      'application removed in the console',
    );
    return reply.redirect(`/console/apps?removed=${found.id}`, 303);
  });
}
