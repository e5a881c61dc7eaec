// The webhooks page: the restaurant's endpoints, each with its recent deliveries (a pending one with
// its next attempt) and a button that sends it a test event (or, once disabled, enables it again).
// Endpoints are added through the API (their secret is shown only there).
import type { Staff } from './console-session.ts';
import { cell, instant, notice, status, table, tags } from './format.ts';
import { html, type SafeHtml } from './html.ts';

type EndpointView = {
  id: number;
  url: string;
  events: string[];
  description: string;
  status: string;
  disabled_reason: string | null;
};

type DeliveryView = {
  event_type: string;
  status: string;
  /** Set while the delivery is pending: when the worker tries it next (the API's field). */
  next_attempt_at: string | null;
  created_at: string;
  attempts: { attempted_at: string; status_code: number | null; duration_ms: number; error: string | null }[];
};

function lastAttempt(delivery: DeliveryView): string {
  const last = delivery.attempts.at(-1);
  if (!last) return 'not tried yet';
  const answer = last.status_code === null ? (last.error ?? 'no answer') : `HTTP ${last.status_code}`;
  return `${answer} in ${last.duration_ms} ms`;
}

/** A pending delivery's next try: its instant, or "due now" when the worker may take it at once. */
function nextAttempt(delivery: DeliveryView, now: Date): SafeHtml {
  if (!delivery.next_attempt_at) return instant(null);
  const at = new Date(delivery.next_attempt_at);
  return at > now ? instant(at) : html`due now`;
}

function deliveriesTable(deliveries: DeliveryView[]): SafeHtml {
  if (!deliveries.length) return html`<p class="muted">No delivery yet.</p>`;
  const now = new Date();
  const rows = deliveries.map(
    (d) => html`<tr>
  ${cell('Created', instant(new Date(d.created_at)))}
  ${cell('Event', html`<code>${d.event_type}</code>`)}
  ${cell('Status', status(d.status))}
  ${cell('Attempts', String(d.attempts.length))}
  ${cell('Last attempt', lastAttempt(d))}
  ${cell('Next attempt', nextAttempt(d, now))}
</tr>`,
  );
  return table(['Created', 'Event', 'Status', 'Attempts', 'Last attempt', 'Next attempt'], rows, false);
}

function endpointSection(staff: Staff, endpoint: EndpointView, deliveries: DeliveryView[]): SafeHtml {
  const disabled = endpoint.status === 'disabled';
  const reason = disabled ? html`<p class="error">Disabled: ${endpoint.disabled_reason}.</p>` : '';
  const [action, label, hint] = disabled
    ? ['enable', 'Enable again', ''] // the button's name is the endpoint's, as "Send test event to"
    : ['test', 'Send test event', ' to'];
  const button = html`<form method="post" action="/console/webhooks/${endpoint.id}/${action}" class="inline">
    <input type="hidden" name="csrf" value="${staff.csrf}">
    <button type="submit" class="secondary">${label}<span class="sr-only">${hint} ${endpoint.url}</span></button>
  </form>`;
  return html`<section class="card wide" aria-labelledby="endpoint-${endpoint.id}">
  <div class="head"><h2 id="endpoint-${endpoint.id}"><code>${endpoint.url}</code></h2>${button}</div>
  <p>${status(endpoint.status)} ${endpoint.description} ${tags(endpoint.events)}</p>${reason}
  ${deliveriesTable(deliveries)}
</section>`;
}

export function webhooksBody(
  staff: Staff,
  endpoints: { endpoint: EndpointView; deliveries: DeliveryView[] }[],
  message?: string,
): SafeHtml {
  const list = endpoints.length
    ? endpoints.map(({ endpoint, deliveries }) => endpointSection(staff, endpoint, deliveries))
    : html`<p class="card">${staff.restaurant.name} has no webhook endpoint yet.</p>`;
  return html`${notice(message)}<div class="head"><h1>Webhooks</h1></div>
<p class="muted">Where ${staff.restaurant.name}'s events are sent, and how the latest deliveries went. Endpoints are added with the API (POST /v1/webhook-endpoints), which shows the signing secret once.</p>
${list}`;
}
