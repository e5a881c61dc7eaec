// Pages of installed applications: the list and the removal confirmation.

import type { InstalledApp } from './apps-service.ts';
import type { Staff } from './console-session.ts';
import { cell, instant, notice, status, table, tags } from './format.ts';
import { html, type SafeHtml } from './html.ts';

function approval(app: InstalledApp): SafeHtml | '' {
  if (!app.approval) return html`<p class="hint">Installed by the operator</p>`;
  return html`<p class="hint">Approved ${instant(app.approval.at)}${app.approval.by ? html` by ${app.approval.by}` : ''}</p>`;
}

export function appsListBody(staff: Staff, apps: InstalledApp[], message?: string): SafeHtml {
  const rows = apps.map(
    (a) => html`<tr>
  ${cell('Application', html`<strong>${a.name}</strong> <code class="muted">${a.clientId}</code>${approval(a)}`)}
  ${cell('Permissions', tags(a.scopes))}
  ${cell('Last used', instant(a.lastUsedAt, 'never'))}
  ${cell('Status', status(a.status))}
  ${cell('Action', html`<a href="/console/apps/${a.id}/revoke">Remove<span class="sr-only"> ${a.name}</span></a>`)}
</tr>`,
  );
  const list = apps.length
    ? table(['Application', 'Permissions', 'Last used', 'Status'], rows)
    : html`<p class="card">No application is installed for ${staff.restaurant.name}.</p>`;
  return html`${notice(message)}<div class="head"><h1>Installed apps</h1></div>
<p class="muted">Applications that may act for ${staff.restaurant.name}. Removing one ends its access here at once.</p>
${list}`;
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
