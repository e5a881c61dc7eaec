// Pages of signing in: the sign-in form, the restaurant picker and the password change.
import type { Staff } from './console-session.ts';
import { html, type SafeHtml } from './html.ts';

type Problems = Record<string, string>;

function field(
  name: string,
  label: string,
  type: string,
  options: { value?: string; problem?: string; autocomplete: string; hint?: string },
) {
  const describedBy = [options.hint && `${name}-hint`, options.problem && `${name}-error`]
    .filter(Boolean)
    .join(' ');
  return html`<div class="field">
  <label for="${name}">${label}</label>
  <input id="${name}" name="${name}" type="${type}" autocomplete="${options.autocomplete}" required
    ${options.value !== undefined ? html`value="${options.value}"` : ''}${options.problem ? html` aria-invalid="true"` : ''}${describedBy ? html` aria-describedby="${describedBy}"` : ''}>
  ${options.hint ? html`<p class="hint" id="${name}-hint">${options.hint}</p>` : ''}
  ${options.problem ? html`<p class="error" id="${name}-error">${options.problem}</p>` : ''}
</div>`;
}

export function alertBox(message: string | undefined): SafeHtml | '' {
  return message ? html`<div class="alert" role="alert">${message}</div>` : '';
}

export function loginBody(view: {
  csrf: string;
  next: string;
  email?: string;
  alert?: string;
  notice?: string;
}): SafeHtml {
  return html`<section class="card narrow" aria-labelledby="login-title">
  <h1 id="login-title">Sign in</h1>
  ${view.notice ? html`<div class="success" role="status">${view.notice}</div>` : ''}
  ${alertBox(view.alert)}
  <form method="post" action="/console/login">
    <input type="hidden" name="csrf" value="${view.csrf}">
    <input type="hidden" name="next" value="${view.next}">
    ${field('email', 'Email', 'email', { value: view.email ?? '', autocomplete: 'username' })}
    ${field('password', 'Password', 'password', { autocomplete: 'current-password' })}
    <div class="actions"><button type="submit">Sign in</button></div>
  </form>
  <p class="hint">Accounts are made by your operator with <code>comanda user create</code>.</p>
</section>`;
}

export function restaurantBody(staff: Staff, next: string): SafeHtml {
  const choices = staff.restaurants.map(
    (r) =>
      html`<label class="choice"><input type="radio" name="restaurant_id" value="${r.id}"${r.id === staff.restaurant.id ? html` checked` : ''}> ${r.name}</label>`,
  );
  return html`<section class="card narrow" aria-labelledby="restaurant-title">
  <h1 id="restaurant-title">Choose a restaurant</h1>
  <form method="post" action="/console/restaurant">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    <input type="hidden" name="next" value="${next}">
    <fieldset><legend>Work on</legend>${choices}</fieldset>
    <div class="actions"><button type="submit">Continue</button></div>
  </form>
</section>`;
}

export function passwordBody(staff: Staff, next: string, problems: Problems = {}): SafeHtml {
  const hint = 'At least 10 characters.';
  return html`<section class="card narrow" aria-labelledby="password-title">
  <h1 id="password-title">${staff.mustChangePassword ? 'Choose your password' : 'Change your password'}</h1>
  ${staff.mustChangePassword ? html`<p>You signed in with a one-time password. Choose your own to continue.</p>` : ''}
  ${alertBox(Object.keys(problems).length ? 'The password was not changed: see below.' : undefined)}
  <form method="post" action="/console/password">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    <input type="hidden" name="next" value="${next}">
    <input type="email" id="username" autocomplete="username" value="${staff.email}" readonly hidden>
    ${field('current_password', 'Current password', 'password', { autocomplete: 'current-password', problem: problems.current_password })}
    ${field('new_password', 'New password', 'password', { autocomplete: 'new-password', problem: problems.new_password, hint })}
    ${field('confirm_password', 'New password again', 'password', { autocomplete: 'new-password', problem: problems.confirm_password })}
    <div class="actions"><button type="submit">Save password</button></div>
  </form>
</section>`;
}
