// The key-management console: server-rendered pages under /console for restaurant staff (sign-in,
// API keys, installed apps, webhooks) and the consent page of GET /oauth/authorize (consent.ts). Every POST
// carries a url-encoded form, comes from this site (Origin) and holds the session's CSRF token.
import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyInstance } from 'fastify';
import { toAppError } from '../../http/error-handler.ts';
import { AppError } from '../../http/errors.ts';
import { formFields, utf8Text } from '../../http/request-utf8.ts';
import { appRoutes } from './apps-routes.ts';
import { assetRoutes } from './assets.ts';
import { consentRoutes } from './consent.ts';
import { csrfMatches, loadStaff, type Staff, sameOrigin } from './console-session.ts';
import { keyRoutes } from './keys-routes.ts';
import { sendMessage } from './layout.ts';
import { loginRoutes } from './login-routes.ts';
import { formOf, loginUrl, nextParam } from './navigation.ts';
import { signInLimiter } from './sign-in-limiter.ts';
import { webhookPages } from './webhooks-routes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    staff: Staff | null;
  }
  interface FastifyContextConfig {
    /** Console access: `staff` (default), `signed-in` (even before a forced password change),
     * `login` (the sign-in form, CSRF by double submit) or `asset` (no session at all). */
    console?: 'staff' | 'signed-in' | 'login' | 'asset';
  }
}

async function consolePages(app: FastifyInstance): Promise<void> {
  app.decorateRequest('staff', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'buffer', bodyLimit: 32 * 1024 },
    (_request, body, done) => done(null, formFields(utf8Text(body as Buffer))),
  );
  app.addHook('preHandler', async (request, reply) => {
    const access = request.routeOptions.config.console ?? 'staff';
    if (access === 'asset') return;
    request.staff = await loadStaff(app.ctx, request);
    if (access !== 'login' && !request.staff) return reply.redirect(loginUrl(request), 303);
    if (request.method === 'POST') {
      const expected = access === 'login' ? null : request.staff;
      if (!sameOrigin(request) || !csrfMatches(request, formOf(request), expected)) {
        const message =
          'The form was too old or did not come from this console. Go back, reload the page and try again.';
        return sendMessage(reply, 403, 'This form cannot be accepted', message, request.staff);
      }
    }
    if (access === 'staff' && request.staff?.mustChangePassword) {
      return reply.redirect(
        `/console/password?${nextParam(request.method === 'GET' ? request.url : '/console')}`,
        303,
      );
    }
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const errorId = randomUUID();
    reply.header('x-error-id', errorId);
    const status = error.validation ? 404 : (error.statusCode ?? 500);
    if (status >= 500) {
      // A database that cannot serve now, or a server shutting down: 503 with Retry-After.
      const known = toAppError(error);
      if (known.expected) request.log.info({ errorId, key: known.key }, known.message);
      else request.log.error({ errorId, err: error }, 'console error');
      if (known.statusCode === 503) {
        reply.headers(known.headers ?? {});
        return sendMessage(reply, 503, 'Temporarily unavailable', 'Try again in a moment.');
      }
      return sendMessage(
        reply,
        500,
        'Something went wrong',
        `Try again; if it persists, quote error ${errorId}.`,
      );
    }
    request.log.info({ errorId, code: error.code }, 'console request refused');
    if (status === 404) return sendMessage(reply, 404, 'Not found', 'There is nothing here.', request.staff);
    return sendMessage(
      reply,
      status,
      'This request cannot be accepted',
      // A body that is not UTF-8 says so (a browser sends the console's forms as UTF-8).
      error instanceof AppError && error.key === 'invalid_body' ? error.message : 'Go back and try again.',
      request.staff,
    );
  });
  app.setNotFoundHandler((request, reply) =>
    sendMessage(reply, 404, 'Not found', 'There is nothing here.', request.staff),
  );
  const limiter = signInLimiter(app.ctx.redis);
  assetRoutes(app);
  loginRoutes(app, limiter);
  keyRoutes(app);
  appRoutes(app);
  webhookPages(app);
  consentRoutes(app);
}

export async function consoleRoutes(app: FastifyInstance): Promise<void> {
  await app.register(consolePages, { prefix: '/console' });
}
