// Types of the event feed and the webhook-endpoint routes (src/modules/events, src/modules/webhooks).

export type EventType =
  | 'product.created'
  | 'product.updated'
  | 'menu.updated'
  | 'nfe_received.created'
  | 'cash_flows.updated'
  | 'app.installed'
  | 'app.revoked';

export type ComandaEvent = {
  id: string;
  type: EventType | 'ping';
  restaurant_id: number;
  created_at: string;
  data: Record<string, unknown>;
};

export type EventsQuery = { after?: string; types?: EventType[]; limit?: number };

export type EventsPage = { data: ComandaEvent[]; next_cursor: string | null; has_more: boolean };

export type WebhookEndpointCreate = { url: string; events: EventType[]; description?: string };

export type WebhookEndpoint = {
  id: number;
  url: string;
  events: EventType[];
  description: string;
  status: 'enabled' | 'disabled';
  disabled_at: string | null;
  disabled_reason: string | null;
  /** The latest expiry among the replaced secrets still signing (each signs 24 hours after its rotation), or null. */
  previous_secret_expires_at: string | null;
  created_at: string;
};

/** The answer of creation and rotation: the only time the secret is shown. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

export type WebhookAttempt = {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
};

export type WebhookDelivery = {
  id: number;
  event_id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
  attempts: WebhookAttempt[];
};

export type WebhookTestQueued = { delivery_id: number; event_id: string; event_type: 'ping' };
