// The page shell of the console: head (one stylesheet, one small script and the icon, all served by
// this app), a header with the restaurant, the signed-in user, the password change and sign-out,
// and the main content. Security headers of every console page are set here too.
import type { FastifyReply } from 'fastify';
import type { Staff } from './console-session.ts';
import { html, type SafeHtml } from './html.ts';

type Section = 'keys' | 'apps' | 'webhooks' | 'account';

type PageOptions = {
  title: string;
  staff?: Staff | null;
  section?: Section;
  body: SafeHtml;
  /** Where a form may send the browser besides this site (the consent page's redirect URI). */
  formTarget?: string;
  /** A same-site URL to move on to at once (works without script). */
  refreshTo?: string;
};

function header(staff: Staff, section?: Section): SafeHtml {
  const link = (href: string, name: Section, label: string) =>
    html`<a href="${href}"${section === name ? html` aria-current="page"` : ''}>${label}</a>`;
  const switcher =
    staff.restaurants.length > 1 ? html` <a class="quiet" href="/console/restaurant">Switch</a>` : '';
  return html`<header class="top">
  <div class="bar">
    <a class="brand" href="/console/keys">comanda <span>console</span></a>
    <nav aria-label="Console">${link('/console/keys', 'keys', 'API keys')}${link('/console/apps', 'apps', 'Installed apps')}${link('/console/webhooks', 'webhooks', 'Webhooks')}</nav>
    <div class="who">
      <span class="restaurant" title="Current restaurant">${staff.restaurant.name}</span>${switcher}
      <span class="user" title="Signed in as">${staff.email}</span>
      <a href="/console/password"${section === 'account' ? html` aria-current="page"` : ''}>Change password</a>
      <form method="post" action="/console/logout" class="inline">
        <input type="hidden" name="csrf" value="${staff.csrf}">
        <button type="submit" class="link">Sign out</button>
      </form>
    </div>
  </div>
</header>`;
}

function renderPage(options: PageOptions): string {
  const top = options.staff
    ? header(options.staff, options.section)
    : html`<header class="top"><div class="bar"><span class="brand">comanda <span>console</span></span></div></header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · comanda console</title>
${options.refreshTo ? html`<meta http-equiv="refresh" content="0;url=${options.refreshTo}">` : ''}
<link rel="icon" href="/console/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${top}
<main id="main" tabindex="-1">
${options.body}
</main>
</body>
</html>
`.text;
}

function contentSecurityPolicy(formTarget?: string): string {
  const forms = formTarget && /^[A-Za-z0-9.+:/[\]-]+$/.test(formTarget) ? `'self' ${formTarget}` : "'self'";
  return [
    "default-src 'none'",
    "style-src 'self'",
    "script-src 'self'",
    "img-src 'self'",
    `form-action ${forms}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** Sends a console page: HTML, never cached, never framed, no script or style from elsewhere. */
export function sendPage(reply: FastifyReply, status: number, options: PageOptions) {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': contentSecurityPolicy(options.formTarget),
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
    })
    .send(renderPage(options));
}

/** A page with a heading and a message: errors, expired forms, "check your link". */
export function sendMessage(
  reply: FastifyReply,
  status: number,
  title: string,
  message: SafeHtml | string,
  staff?: Staff | null,
) {
  const body = html`<section class="card narrow"><h1>${title}</h1><p>${message}</p></section>`;
  return sendPage(reply, status, { title, staff, body });
}
