// Small pieces shared by the console's tables: instants, scope tags, statuses.
import { html, type SafeHtml } from './html.ts';

/** An instant as `2026-01-10 12:00 UTC` (machine-readable in `datetime`), or a dash. */
export function instant(value: Date | null, none = '—'): SafeHtml {
  if (!value) return html`<span class="muted">${none}</span>`;
  const iso = value.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

export function tags(values: string[]): SafeHtml[] {
  return values.map((value) => html`<span class="tag">${value}</span>`);
}

export function status(value: string): SafeHtml {
  return html`<span class="status-${value}">${value}</span>`;
}

export function notice(message: string | undefined): SafeHtml | '' {
  return message ? html`<div class="success" role="status">${message}</div>` : '';
}
