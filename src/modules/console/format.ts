// Small pieces shared by the console's tables: instants, scope tags, statuses.
import { html, type SafeHtml } from './html.ts';

/** An instant as `2026-01-10 12:00 UTC` (machine-readable in `datetime`), or a dash. */
export function instant(value: Date | null, none = '—'): SafeHtml {
  if (!value) return html`<span class="muted">${none}</span>`;
  const iso = value.toISOString();
  return html`<time datetime="${iso}"><span class="nw">${iso.slice(0, 10)}</span> <span class="nw">${iso.slice(11, 16)} UTC</span></time>`;
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

/** A table cell that keeps its label for the phone layout, where each row becomes a card. */
export function cell(label: string, content: unknown): SafeHtml {
  return html`<td data-label="${label}"><div>${content}</div></td>`;
}

/** A table whose last column holds the row's action (unless its rows have none). */
export function table(labels: string[], rows: SafeHtml[], withAction = true): SafeHtml {
  const head = labels.map((label) => html`<th scope="col">${label}</th>`);
  const action = withAction ? html`<th scope="col"><span class="sr-only">Action</span></th>` : '';
  const plain = withAction ? '' : html` class="plain"`;
  return html`<div class="table-wrap"><table${plain}><thead><tr>${head}${action}</tr></thead><tbody>${rows}</tbody></table></div>`;
}
