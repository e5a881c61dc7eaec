// Signing in and out, choosing the restaurant, changing the password.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { limitAddress } from '../../http/client-address.ts';
import { clearSessionCookie, loginCsrf, setSessionCookie } from './console-session.ts';
import { sendMessage, sendPage } from './layout.ts';
import { loginBody, passwordBody, restaurantBody } from './login-pages.ts';
import { formOf, HOME, nextParam, safeNext } from './navigation.ts';
import type { SignInLimiter } from './sign-in-limiter.ts';
import { restaurantsOf } from './staff-repository.ts';
import { changePassword, checkSignIn, endConsoleSession, startConsoleSession } from './staff-service.ts';

const NextQuery = Type.Object({
  next: Type.Optional(Type.String()),
  signed_out: Type.Optional(Type.String()),
});
type Next = { next?: string; signed_out?: string };
const page = (querystring = NextQuery) => ({ hide: true, querystring });

/** A new sign-in (or a switch) replaces the console session of the cookie. */
async function openSession(
  request: FastifyRequest,
  reply: FastifyReply,
  staffUserId: number,
  restaurantId: number,
) {
  const ctx = request.server.ctx;
  if (request.staff) await endConsoleSession(ctx.db, request.staff.sessionId);
  setSessionCookie(request, reply, await startConsoleSession(ctx, staffUserId, restaurantId));
}

export function loginRoutes(app: FastifyInstance, limiter: SignInLimiter): void {
  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(HOME, 303));

  app.get('/login', { schema: page(), config: { console: 'login' } }, async (request, reply) => {
    const query = request.query as Next;
    const next = safeNext(query.next);
    if (request.staff) return reply.redirect(next, 303);
    const notice = query.signed_out ? 'You signed out.' : undefined;
    return sendPage(reply, 200, {
      title: 'Sign in',
      body: loginBody({ csrf: loginCsrf(request, reply), next, notice }),
    });
  });

  app.post('/login', { schema: { hide: true }, config: { console: 'login' } }, async (request, reply) => {
    const form = formOf(request);
    const next = safeNext(form.get('next'));
    const email = form.get('email') ?? '';
    const input = { email, password: form.get('password') ?? '', address: limitAddress(request.ip) };
    const outcome = await checkSignIn(app.ctx.db, limiter, input);
    const logged =
      'staffUserId' in outcome
        ? { staff_user_id: outcome.staffUserId }
        : { refused: 'retryAfter' in outcome ? 'too many failures' : 'credentials' };
    request.log.info(logged, 'console sign-in');
    if ('staffUserId' in outcome) {
      const restaurants = await restaurantsOf(app.ctx.db, outcome.staffUserId);
      if (!restaurants.length)
        return sendMessage(reply, 403, 'No restaurant', 'Your account has no restaurant yet.');
      await openSession(request, reply, outcome.staffUserId, restaurants[0].id);
      return reply.redirect(restaurants.length > 1 ? `/console/restaurant?${nextParam(next)}` : next, 303);
    }
    const csrf = loginCsrf(request, reply);
    if ('retryAfter' in outcome) {
      reply.header('retry-after', String(outcome.retryAfter));
      const alert = `Too many failed sign-ins. Try again in ${Math.ceil(outcome.retryAfter / 60)} minutes.`;
      return sendPage(reply, 429, { title: 'Sign in', body: loginBody({ csrf, next, email, alert }) });
    }
    const alert = 'The email or the password is not right.';
    return sendPage(reply, 401, { title: 'Sign in', body: loginBody({ csrf, next, email, alert }) });
  });

  app.post(
    '/logout',
    { schema: { hide: true }, config: { console: 'signed-in' } },
    async (request, reply) => {
      await endConsoleSession(app.ctx.db, request.staff!.sessionId);
      clearSessionCookie(request, reply);
      return reply.redirect('/console/login?signed_out=1', 303);
    },
  );

  app.get('/restaurant', { schema: page() }, async (request, reply) => {
    const staff = request.staff!;
    const next = safeNext((request.query as Next).next);
    return sendPage(reply, 200, { title: 'Choose a restaurant', staff, body: restaurantBody(staff, next) });
  });

  app.post('/restaurant', { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request);
    const staff = request.staff!;
    const chosen = staff.restaurants.find((r) => String(r.id) === form.get('restaurant_id'));
    if (!chosen)
      return sendMessage(reply, 400, 'Choose a restaurant', 'Go back and choose one of yours.', staff);
    await openSession(request, reply, staff.staffUserId, chosen.id);
    return reply.redirect(safeNext(form.get('next')), 303);
  });

  app.get('/password', { schema: page(), config: { console: 'signed-in' } }, async (request, reply) => {
    const staff = request.staff!;
    const next = safeNext((request.query as Next).next);
    return sendPage(reply, 200, {
      title: 'Password',
      staff,
      section: 'account',
      body: passwordBody(staff, next),
    });
  });

  app.post(
    '/password',
    { schema: { hide: true }, config: { console: 'signed-in' } },
    async (request, reply) => {
      const form = formOf(request);
      const staff = request.staff!;
      const next = safeNext(form.get('next'));
      const input = {
        current: form.get('current_password') ?? '',
        next: form.get('new_password') ?? '',
        confirm: form.get('confirm_password') ?? '',
      };
      const who = {
        staffUserId: staff.staffUserId,
        email: staff.email,
        address: limitAddress(request.ip),
        sessionId: staff.sessionId,
      };
      const problems = await changePassword(app.ctx.db, limiter, who, input);
      if (Object.keys(problems).length) {
        return sendPage(reply, 400, {
          title: 'Password',
          staff,
          section: 'account',
          body: passwordBody(staff, next, problems),
        });
      }
      return reply.redirect(next, 303);
    },
  );
}
