// @comanda/client: a typed client of the comanda API with token management, using only fetch.

export type * from './change-review-types.ts';
export {
  type CallOptions,
  ComandaClient,
  type ComandaClientOptions,
  type EditOptions,
  type TokenSource,
} from './client.ts';
export { ComandaError, type FieldError, maskSecrets } from './errors.ts';
export type * from './event-types.ts';
export type * from './product-types.ts';
export type * from './report-types.ts';
export { TokenManager, type TokenManagerOptions, type TokenSet } from './token-manager.ts';
export type { ClientLogEvent, RetryPolicy } from './transport.ts';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS } from './verify-webhook.ts';
