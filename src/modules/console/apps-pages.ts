// Pages of installed applications: the list and the removal confirmation.
import type { Staff } from './console-session.ts';
import { instant, notice, status, tags } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import type { InstalledApp } from './apps-service.ts';

export function appsListBody(staff: Staff, apps: InstalledApp[], message?: string): SafeHtml {
  const rows = apps.map(
    (a) => html`<tr>
  <td data-label="Application">${a.name}<br><code class="muted">${a.clientId}</code></td>
  <td data-label="Permissions">${tags(a.scopes)}</td>
  <td data-label="Last used">${instant(a.lastUsedAt, 'never')}</td>
  <td data-label="Status">${status(a.status)}</td>
  <td data-label="Action"><a href="/console/apps/${a.id}/revoke">Remove<span class="sr-only"> ${a.name}</span></a></td>
</tr>`,
  );
  const table = apps.length
    ? html`<table><thead><tr><th scope="col">Application</th><th scope="col">Permissions</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead><tbody>${rows}</tbody></table>`
    : html`<p class="card">No application is installed for ${staff.restaurant.name}.</p>`;
  return html`${notice(message)}<div class="head"><h1>Installed apps</h1></div>
<p class="muted">Applications that may act for ${staff.restaurant.name}. Removing one ends its access here at once.</p>
${table}`;
}

export function removeAppBody(staff: Staff, app: InstalledApp): SafeHtml {
  return html`<section class="card narrow" aria-labelledby="remove-title">
  <h1 id="remove-title">Remove ${app.name}?</h1>
  <p>${app.name} loses access to ${staff.restaurant.name} at once: its access and refresh tokens for this restaurant stop
  working. To use it again, someone has to approve it again.</p>
  <form method="post" action="/console/apps/${app.id}/revoke">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    <div class="actions"><button type="submit" class="danger">Remove application</button><a href="/console/apps">Cancel</a></div>
  </form>
</section>`;
}
