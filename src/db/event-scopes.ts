// The kinds of event and the read scopes that show each one (any of them): the one definition,
// here so that migrate.ts can write it into event_type_scopes for migration 0022's triggers (db/
// imports no module). src/modules/events/event-types.ts checks each scope against the scopes of
// the API and exports it as EVENT_SCOPES for the rest of the code: a new event type goes here.
export const EVENT_TYPE_SCOPES = {
  'product.created': ['products:read', 'menu:read'],
  'product.updated': ['products:read', 'menu:read'],
  'menu.updated': ['products:read', 'menu:read'],
  'nfe_received.created': ['nfe-received:read'],
  'cash_flows.updated': ['financial:read'],
  'app.installed': ['webhooks:read'],
  'app.revoked': ['webhooks:read'],
} as const;
