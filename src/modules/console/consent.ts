// The human side of GET /oauth/authorize (RFC 6749 4.1.1): a staff member signed in to the
// console sees the consent page and answers it with POST /console/authorize. API callers that
// send a restaurant session as Bearer keep the redirect-only behaviour of auth/authorize.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.ts';
import { OAuthError, oauthErrors } from '../../http/errors.ts';
import type { Scope } from '../../http/principal.ts';
import { type AuthorizeQuery, checkRequest, redirectWith, trustedClient } from '../auth/authorize.ts';
import type { ClientCredential } from '../auth/oauth-clients.ts';
import { clientName } from './apps-repository.ts';
import { approveApp } from './apps-service.ts';
import { AUTHORIZE_FIELDS, consentBody, destinationOf, signInHopBody } from './consent-page.ts';
import { loadStaff, readCookie, SESSION_COOKIE } from './console-session.ts';
import { html } from './html.ts';
import { sendMessage, sendPage } from './layout.ts';
import { formOf, nextParam } from './navigation.ts';

type Checked = { client: ClientCredential; scopes: Scope[] } | { invalid: string } | { redirect: string };

/** Errors before the client and its redirect URI are trusted are shown, never redirected (4.1.2.1). */
async function checkAuthorization(ctx: AppContext, query: AuthorizeQuery): Promise<Checked> {
  let client: ClientCredential;
  try {
    client = await trustedClient(ctx.db, query);
  } catch (err) {
    if (err instanceof OAuthError) return { invalid: err.message };
    throw err;
  }
  try {
    return { client, scopes: checkRequest(client, query) };
  } catch (err) {
    if (err instanceof OAuthError) return { redirect: redirectWith(query, err) };
    throw err;
  }
}

function refuse(reply: FastifyReply, checked: { invalid: string } | { redirect: string }) {
  if ('redirect' in checked) return reply.header('cache-control', 'no-store').redirect(checked.redirect, 303);
  const message = html`The application sent a request that cannot be used: ${checked.invalid} Go back to it and try again.`;
  return sendMessage(reply, 400, 'This link cannot be used', message);
}

/** A browser without a Bearer header: a person, who answers on the consent page. */
export function isBrowserApproval(request: FastifyRequest): boolean {
  if (request.headers.authorization !== undefined) return false;
  return (
    readCookie(request, SESSION_COOKIE) !== undefined || /text\/html/i.test(request.headers.accept ?? '')
  );
}

export async function showConsent(request: FastifyRequest, reply: FastifyReply) {
  const ctx = request.server.ctx;
  const query = request.query as AuthorizeQuery;
  const checked = await checkAuthorization(ctx, query);
  if (!('client' in checked)) return refuse(reply, checked);
  const staff = await loadStaff(ctx, request);
  const here = request.url;
  if (!staff) {
    const target = `/console/login?${nextParam(here)}`;
    return sendPage(reply, 200, {
      title: 'Sign in to continue',
      body: signInHopBody(target),
      refreshTo: target,
    });
  }
  if (staff.mustChangePassword) return reply.redirect(`/console/password?${nextParam(here)}`, 303);
  const view = {
    staff,
    appName: await clientName(ctx.db, checked.client.id),
    clientId: checked.client.clientId,
  };
  const body = consentBody({ ...view, scopes: checked.scopes, query, here });
  return sendPage(reply, 200, {
    title: 'Allow access',
    staff,
    body,
    formTarget: destinationOf(query.redirect_uri!),
  });
}

/** POST /console/authorize: the answer of the consent page (CSRF and session checked by index.ts). */
export function consentRoutes(app: FastifyInstance): void {
  app.post('/authorize', { schema: { hide: true } }, async (request, reply) => {
    const form = formOf(request);
    const query: AuthorizeQuery = {};
    for (const name of AUTHORIZE_FIELDS) if (form.has(name)) query[name] = form.get(name)!;
    const checked = await checkAuthorization(app.ctx, query);
    if (!('client' in checked)) return refuse(reply, checked);
    const decision = form.get('decision');
    reply.header('cache-control', 'no-store');
    if (decision === 'deny') {
      return reply.redirect(
        redirectWith(query, oauthErrors.accessDenied('The restaurant denied the request.')),
        303,
      );
    }
    if (decision !== 'allow')
      return sendMessage(reply, 400, 'Choose Allow or Deny', 'Go back and choose an answer.');
    const staff = request.staff!;
    const grant = {
      restaurantId: staff.restaurant.id,
      scopes: checked.scopes,
      staffUserId: staff.staffUserId,
    };
    const code = await approveApp(app.ctx.db, checked.client, query, grant);
    return reply.redirect(redirectWith(query, { code }), 303);
  });
}
