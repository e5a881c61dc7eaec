// What each scope lets an integration do, in one plain sentence, for the people who grant it.
import type { Scope } from '../../http/principal.ts';

export const SCOPE_SENTENCES: Record<Scope, string> = {
  'products:read': 'See your products and categories, with their prices and fiscal data.',
  'products:write': 'Create and change your products, their prices, availability and sold-out status.',
  'menu:read': 'See your menu with the price and availability of each product in each channel.',
  'financial:read': 'See your financial entries: payables, receivables and their totals.',
  'nfe-received:read': 'See the electronic invoices (NF-e) your restaurant received, in detail.',
  'webhooks:read': 'See the webhook endpoints and their deliveries, and the events of your restaurant.',
  'webhooks:write': 'Add and remove webhook endpoints that are told of changes, and rotate their secrets.',
};
