// Pages of API keys: the list, the creation form, the key shown once, the revoke confirmation.
import { SCOPES } from '../../http/principal.ts';
import type { Staff } from './console-session.ts';
import { cell, instant, notice, status, table, tags } from './format.ts';
import { html, type SafeHtml } from './html.ts';
import type { KeyForm, KeyProblems, KeyView } from './keys-service.ts';
import { alertBox } from './login-pages.ts';
import { SCOPE_SENTENCES } from './scope-words.ts';

/** Names of the staff member's restaurants; others are only counted (not theirs to see). */
function restaurantNames(staff: Staff, ids: number[]): SafeHtml[] {
  const names = staff.restaurants
    .filter((r) => ids.includes(r.id))
    .map((r) => html`<span class="tag name">${r.name}</span>`);
  const others = ids.length - names.length;
  return others ? [...names, html`<span class="tag">+${others} other${others > 1 ? 's' : ''}</span>`] : names;
}

export function keysListBody(staff: Staff, keys: KeyView[], message?: string): SafeHtml {
  const rows = keys.map(
    (k) => html`<tr>
  ${cell('Name', k.name)}
  ${cell('Key', html`<code class="nw">${k.prefix}…</code> <span class="muted" title="Environment">${k.environment}</span>`)}
  ${cell('Permissions', tags(k.scopes))}
  ${cell('Restaurants', restaurantNames(staff, k.restaurantIds))}
  ${cell('Created', instant(k.createdAt))}
  ${cell('Last used', instant(k.lastUsedAt, 'never'))}
  ${cell('Status', status(k.status))}
  ${cell('Action', k.status === 'active' ? html`<a href="/console/keys/${k.id}/revoke">Revoke<span class="sr-only"> ${k.name}</span></a>` : '')}
</tr>`,
  );
  const list = keys.length
    ? table(['Name', 'Key', 'Permissions', 'Restaurants', 'Created', 'Last used', 'Status'], rows)
    : html`<p class="card">No API key acts for ${staff.restaurant.name} yet.</p>`;
  return html`${notice(message)}<div class="head"><h1>API keys</h1><a class="button" href="/console/keys/new">New API key</a></div>
<p class="muted">Keys that can act for ${staff.restaurant.name}. A key is shown only once, when it is made; here you see its first characters.</p>
${list}`;
}

function choices(name: string, options: { value: string; label: SafeHtml | string; checked: boolean }[]) {
  return options.map(
    (o) =>
      html`<label class="choice"><input type="checkbox" name="${name}" value="${o.value}"${o.checked ? html` checked` : ''}> <span>${o.label}</span></label>`,
  );
}

function problem(id: string, text: string | undefined) {
  return text ? html`<p class="error" id="${id}">${text}</p>` : '';
}

export function newKeyBody(staff: Staff, values: KeyForm, problems: KeyProblems = {}): SafeHtml {
  const scopes = choices(
    'scopes',
    SCOPES.map((s) => ({
      value: s,
      label: html`<code>${s}</code>: ${SCOPE_SENTENCES[s]}`,
      checked: values.scopes.includes(s),
    })),
  );
  const restaurants = choices(
    'restaurant_ids',
    staff.restaurants.map((r) => ({
      value: String(r.id),
      label: r.name,
      checked: values.restaurantIds.includes(r.id),
    })),
  );
  const env = (value: string, label: string) =>
    html`<label class="choice"><input type="radio" name="environment" value="${value}"${values.environment === value ? html` checked` : ''}> <span>${label}</span></label>`;
  const invalid = (field: keyof KeyForm) =>
    problems[field] ? html` aria-invalid="true" aria-describedby="${field}-error"` : '';
  return html`<section class="card wide" aria-labelledby="new-key-title">
  <h1 id="new-key-title">New API key</h1>
  ${alertBox(Object.keys(problems).length ? 'The key was not created: see below.' : undefined)}
  <form method="post" action="/console/keys">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    <div class="field"><label for="name">Name</label>
      <input id="name" name="name" type="text" maxlength="100" required value="${values.name}"${problems.name ? html` aria-invalid="true"` : ''} aria-describedby="name-hint${problems.name ? ' name-error' : ''}">
      <p class="hint" id="name-hint">Say who uses it, e.g. "POS at the counter".</p>${problem('name-error', problems.name)}</div>
    <fieldset${invalid('scopes')}><legend>Permissions</legend>${scopes}${problem('scopes-error', problems.scopes)}</fieldset>
    <fieldset${invalid('restaurantIds')}><legend>Restaurants</legend>${restaurants}${problem('restaurantIds-error', problems.restaurantIds)}</fieldset>
    <fieldset${invalid('environment')}><legend>Environment</legend>${env('live', 'Live (ck_live_)')}${env('test', 'Test (ck_test_): not a sandbox, it changes the same real data')}${problem('environment-error', problems.environment)}</fieldset>
    <div class="actions"><button type="submit">Create key</button><a href="/console/keys">Cancel</a></div>
  </form>
</section>`;
}

export function keyCreatedBody(apiKey: string, name: string): SafeHtml {
  return html`<section class="card wide" aria-labelledby="created-title">
  <h1 id="created-title">API key created</h1>
  <div class="notice" role="status"><strong>Copy it now: this is the only time it is shown.</strong> Store it where only the integration's server can read it.</div>
  <div class="field"><label for="api-key">${name}</label>
  <div class="secret"><input id="api-key" type="text" readonly value="${apiKey}" spellcheck="false" autocomplete="off">
  <button type="button" class="secondary" data-copy="api-key" data-status="copy-status" hidden>Copy</button></div>
  <p class="hint" id="copy-status" role="status"></p></div>
  <p><a href="/console/keys">Back to API keys</a></p>
</section>`;
}

export function revokeKeyBody(staff: Staff, key: KeyView): SafeHtml {
  const shared =
    key.restaurantIds.length > 1
      ? html`<p>It also acts for ${restaurantNames(
          staff,
          key.restaurantIds.filter((id) => id !== staff.restaurant.id),
        )}; it stops there too.</p>`
      : '';
  return html`<section class="card narrow" aria-labelledby="revoke-title">
  <h1 id="revoke-title">Revoke “${key.name}”?</h1>
  <p>The key <code>${key.prefix}…</code> and every access token made with it stop working at once. This cannot be undone.</p>
  ${shared}
  <form method="post" action="/console/keys/${key.id}/revoke">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    <div class="actions"><button type="submit" class="danger">Revoke key</button><a href="/console/keys">Cancel</a></div>
  </form>
</section>`;
}
