// The consent page: which application, what it will be able to do (one sentence per scope),
// for which restaurant, and where the browser goes next.
import type { AuthorizeQuery } from '../auth/authorize.ts';
import type { Staff } from './console-session.ts';
import { html, type SafeHtml } from './html.ts';
import { SCOPE_SENTENCES } from './scope-words.ts';

export const AUTHORIZE_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
] as const;

/** Where the redirect URI leads, as a person reads it and as a CSP form-action source. */
export function destinationOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

type ConsentView = {
  staff: Staff;
  appName: string;
  clientId: string;
  scopes: string[];
  query: AuthorizeQuery;
  /** This request's own URL, to come back to after switching restaurant. */
  here: string;
};

export function consentBody(view: ConsentView): SafeHtml {
  const { staff, query } = view;
  const hidden = AUTHORIZE_FIELDS.filter((name) => query[name] !== undefined).map(
    (name) => html`<input type="hidden" name="${name}" value="${query[name]}">`,
  );
  const scopes = view.scopes.map(
    (scope) =>
      html`<li>${SCOPE_SENTENCES[scope as keyof typeof SCOPE_SENTENCES] ?? scope} <code class="muted">${scope}</code></li>`,
  );
  const switcher =
    staff.restaurants.length > 1
      ? html` <a href="/console/restaurant?next=${encodeURIComponent(view.here)}">Use another restaurant</a>`
      : '';
  return html`<section class="card narrow" aria-labelledby="consent-title">
  <h1 id="consent-title">Allow ${view.appName} to use ${staff.restaurant.name}?</h1>
  <dl class="facts">
    <dt>Application</dt><dd>${view.appName} <code class="muted">${view.clientId}</code></dd>
    <dt>Restaurant</dt><dd><strong>${staff.restaurant.name}</strong>${switcher}</dd>
    <dt>Signed in as</dt><dd>${staff.email}</dd>
  </dl>
  <h2>It will be able to:</h2>
  <ul class="scopes">${scopes}</ul>
  <p class="hint">Afterwards you go back to <strong>${destinationOf(query.redirect_uri!)}</strong>. You can remove the
  application at any time under <a href="/console/apps">Installed apps</a>.</p>
  <form method="post" action="/console/authorize">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    ${hidden}
    <div class="actions">
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
    </div>
  </form>
</section>`;
}

/** A signed-out visitor: a same-site hop to sign-in (a SameSite=Strict cookie is not sent on the
 * navigation that came from the application's site, but is on this page's own navigation). */
export function signInHopBody(target: string): SafeHtml {
  return html`<section class="card narrow"><h1>Sign in to continue</h1>
  <p>An application asks for access to your restaurant. <a id="continue" href="${target}">Continue to sign in</a>.</p></section>`;
}
