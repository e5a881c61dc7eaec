// A typed client of every data route. Reads (and dry runs, which write nothing) retry on 429
// (after Retry-After), 502, 503 and lost connections with bounded backoff, and once after a 401
// with a renewed token; so do the writes the server applies at most once per Idempotency-Key
// (the product writes, and DELETE), sent with one. The webhook-endpoint POSTs have no such key on
// the server: they are retried only on 429 and 401 (answered before the write runs), and one
// without an answer throws `outcome_unknown` (re-read before sending it again). A 409 is the
// caller's to resolve by re-reading. Every error is a ComandaError.
import type {
  ProductDryRun,
  ProductHistoryEntry,
  ProductHistoryPage,
  ProductHistoryQuery,
} from './change-review-types.ts';
import { type Answer, ComandaError } from './errors.ts';
import type {
  EventsPage,
  EventsQuery,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreate,
  WebhookEndpointWithSecret,
  WebhookTestQueued,
} from './event-types.ts';
import type {
  CatalogCategory,
  Menu,
  MenuQuery,
  Product,
  ProductAvailability,
  ProductBulkEdit,
  ProductCreate,
  ProductEdit,
} from './product-types.ts';
import type {
  Brand,
  CashFlowEntry,
  CashFlowsPage,
  CashFlowsQuery,
  Me,
  NfeListQuery,
  ReceivedNfe,
  ReceivedNfeDetail,
} from './report-types.ts';
import { createRevalidation, type Revalidation } from './revalidation.ts';
import { TokenManager, type TokenManagerOptions } from './token-manager.ts';
import {
  type ClientLogEvent,
  DEFAULT_RETRY,
  type Exchange,
  READ_RETRY,
  type RetryPolicy,
  send,
  sleep,
  type Transport,
} from './transport.ts';

/** Anything that hands out access tokens: a TokenManager, or a fixed restaurant session. */
export type TokenSource = { getAccessToken(): Promise<string>; invalidate?(token: string): void };

export type ComandaClientOptions = {
  /** The service address, without /v1 (e.g. http://127.0.0.1:3000). */
  baseUrl: string;
  /** A token source; or give `apiKey` (and the other TokenManager options) to make one. */
  tokens?: TokenSource;
  /** Default `restaurant_id` for partner credentials; each call may override it. */
  restaurantId?: number;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  fetch?: typeof fetch;
  logger?: (event: ClientLogEvent) => void;
  /**
   * Bodies of tagged reads kept for revalidation (If-None-Match; a 304 returns the kept body),
   * in entries, least recently used out first; 0 keeps none (default 256).
   */
  revalidationEntries?: number;
  /**
   * The most text those bodies hold in all, in UTF-16 code units (bytes for the usual JSON); a
   * body longer than this is not kept (default 64 Mi).
   */
  revalidationLength?: number;
} & Partial<
  Pick<
    TokenManagerOptions,
    'apiKey' | 'scope' | 'refreshToken' | 'onTokens' | 'onRefreshTokenDropped' | 'refreshMarginSeconds'
  >
>;

export type CallOptions = {
  restaurantId?: number;
  signal?: AbortSignal;
  /**
   * A product write's Idempotency-Key; by default a new UUID per call, kept across its retries.
   * The webhook-endpoint POSTs send none (the server does not apply them once per key).
   */
  idempotencyKey?: string;
};

/** `dryRun: true`: every check of the write, nothing written; the answer is the review. */
export type EditOptions = CallOptions & { dryRun?: boolean };

type Query = Record<string, string | number | boolean | undefined>;

/** A write the server does not apply once per Idempotency-Key: sent without one (#call's `keyed`). */
const UNKEYED = false;
/** The answers given before a write runs (the rate limit): safe to send it again after them. */
const BEFORE_THE_WRITE: ReadonlySet<number> = new Set([429]);
type Method = Exchange['method'];

export class ComandaClient {
  readonly tokens: TokenSource;
  readonly #transport: Transport;
  readonly #restaurantId: number | undefined;
  readonly #revalidation: Revalidation;

  constructor(options: ComandaClientOptions) {
    const { baseUrl, fetch = globalThis.fetch, logger, timeoutMs = 30_000 } = options;
    if (!options.tokens && !options.apiKey) throw new TypeError('ComandaClient needs `tokens` or `apiKey`.');
    this.tokens =
      options.tokens ?? new TokenManager({ ...options, apiKey: options.apiKey!, fetch, logger, timeoutMs });
    this.#restaurantId = options.restaurantId;
    this.#revalidation = createRevalidation(options.revalidationEntries, options.revalidationLength);
    this.#transport = {
      baseUrl,
      fetch,
      timeoutMs,
      // A field given as undefined keeps its default (spread, it would end every bound).
      retry: {
        ...DEFAULT_RETRY,
        ...Object.fromEntries(Object.entries(options.retry ?? {}).filter(([, value]) => value !== undefined)),
      },
      log: logger,
      sleep,
    };
  }

  listProducts(options?: CallOptions): Promise<CatalogCategory[]> {
    return this.#call('GET', '/v1/products', {}, undefined, options);
  }

  getProduct(productId: number, options?: CallOptions): Promise<Product> {
    return this.#call('GET', `/v1/products/${id(productId)}`, {}, undefined, options);
  }

  createProduct(product: ProductCreate, options?: CallOptions): Promise<Product> {
    return this.#call('POST', '/v1/products', {}, product, options);
  }

  editProduct(
    productId: number,
    changes: ProductEdit,
    options: EditOptions & { dryRun: true },
  ): Promise<ProductDryRun>;
  editProduct(
    productId: number,
    changes: ProductEdit,
    options?: EditOptions & { dryRun?: false },
  ): Promise<Product>;
  editProduct(
    productId: number,
    changes: ProductEdit,
    options?: EditOptions,
  ): Promise<Product | ProductDryRun>;
  editProduct(productId: number, changes: ProductEdit, { dryRun, ...options }: EditOptions = {}) {
    return this.#call('PUT', `/v1/products/${id(productId)}`, dryRunQuery(dryRun), changes, options);
  }

  /** 1 to 100 edits, all or none; the answer keeps their order. */
  bulkEditProducts(edits: ProductBulkEdit[], options: EditOptions & { dryRun: true }): Promise<ProductDryRun>;
  bulkEditProducts(edits: ProductBulkEdit[], options?: EditOptions & { dryRun?: false }): Promise<Product[]>;
  bulkEditProducts(edits: ProductBulkEdit[], options?: EditOptions): Promise<Product[] | ProductDryRun>;
  bulkEditProducts(edits: ProductBulkEdit[], { dryRun, ...options }: EditOptions = {}) {
    return this.#call('PUT', '/v1/products/bulk', dryRunQuery(dryRun), edits, options);
  }

  /** One page of the product's change log, newest first; pass `next_cursor` back as `cursor`. */
  history(
    productId: number,
    query: ProductHistoryQuery = {},
    options?: CallOptions,
  ): Promise<ProductHistoryPage> {
    return this.#call('GET', `/v1/products/${id(productId)}/history`, query, undefined, options);
  }

  /** Every change of the product, newest first, page after page. */
  async *historyEntries(productId: number, options?: CallOptions): AsyncGenerator<ProductHistoryEntry> {
    const followed = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await this.history(productId, { cursor }, options);
      yield* page.items;
      cursor = page.next_cursor ?? undefined;
      if (cursor !== undefined) follow(followed, cursor, 'GET /v1/products/{id}/history');
    } while (cursor);
  }

  setAvailability(
    productId: number,
    availability: ProductAvailability,
    options?: CallOptions,
  ): Promise<Product> {
    return this.#call('PATCH', `/v1/products/${id(productId)}/availability`, {}, availability, options);
  }

  getMenu(query: MenuQuery = {}, options?: CallOptions): Promise<Menu> {
    return this.#call('GET', '/v1/menu', query, undefined, options);
  }

  /** One page (100 main entries from `offset`); see cashFlowPages() for all of them. */
  listCashFlows(query: CashFlowsQuery, options?: CallOptions): Promise<CashFlowsPage> {
    return this.#call('GET', '/v1/financial/cash-flows', query, undefined, options);
  }

  /** Every page of the period, offset by 100 while `remaining` > 0. */
  async *cashFlowPages(query: CashFlowsQuery, options?: CallOptions): AsyncGenerator<CashFlowsPage> {
    let offset = query.offset ?? 0;
    for (;;) {
      const page = await this.listCashFlows({ ...query, offset }, options);
      yield page;
      if (page.remaining <= 0 || page.count === 0) return;
      offset = page.offset + page.limit;
    }
  }

  /** Every main entry of the period (children stay inside `items`). */
  async *cashFlowEntries(query: CashFlowsQuery, options?: CallOptions): AsyncGenerator<CashFlowEntry> {
    for await (const page of this.cashFlowPages(query, options)) yield* page.cash_flows;
  }

  /** The credential in use: kind, name, environment, scopes, expiry and the restaurants it can act for. */
  getMe(options?: CallOptions): Promise<Me> {
    // The credential's own answer: no restaurant_id, not even the client's default one.
    return this.#call('GET', '/v1/me', { restaurant_id: undefined }, undefined, options);
  }

  /** The restaurant's brands in id order (deleted ones left out): the first step of the NF-e sequence. */
  async listBrands(options?: CallOptions): Promise<Brand[]> {
    const { data } = await this.#call<{ data: Brand[] }>('GET', '/v1/brands', {}, undefined, options);
    return data;
  }

  listReceivedNfe(query: NfeListQuery, options?: CallOptions): Promise<ReceivedNfe[]> {
    return this.#call('GET', '/v1/nfe-received', query, undefined, options);
  }

  getReceivedNfe(nfeReceivedId: number, options?: CallOptions): Promise<ReceivedNfeDetail> {
    return this.#call('GET', `/v1/nfe-received/info/${id(nfeReceivedId)}`, {}, undefined, options);
  }

  /** One page of the event feed, in commit order; pass `next_cursor` back as `after`. */
  eventsPage({ types, ...query }: EventsQuery = {}, options?: CallOptions): Promise<EventsPage> {
    return this.#call('GET', '/v1/events', { ...query, types: types?.join(',') }, undefined, options);
  }

  /** The feed page after page from `after` until no more is ready (`next_cursor` of the last one resumes). */
  async *listEvents(query: EventsQuery = {}, options?: CallOptions): AsyncGenerator<EventsPage> {
    const followed = new Set<string>(query.after === undefined ? [] : [query.after]);
    let after = query.after;
    for (;;) {
      const page = await this.eventsPage({ ...query, after }, options);
      yield page;
      if (!page.has_more) return;
      // Without a cursor, or with one already followed, the next page would be one already read.
      after = follow(followed, page.next_cursor, 'GET /v1/events');
    }
  }

  createWebhookEndpoint(
    endpoint: WebhookEndpointCreate,
    options?: CallOptions,
  ): Promise<WebhookEndpointWithSecret> {
    return this.#call('POST', '/v1/webhook-endpoints', {}, endpoint, options, UNKEYED);
  }

  async listWebhookEndpoints(options?: CallOptions): Promise<WebhookEndpoint[]> {
    return (
      await this.#call<{ data: WebhookEndpoint[] }>('GET', '/v1/webhook-endpoints', {}, undefined, options)
    ).data;
  }

  getWebhookEndpoint(endpointId: number, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.#call('GET', `/v1/webhook-endpoints/${id(endpointId)}`, {}, undefined, options);
  }

  async deleteWebhookEndpoint(endpointId: number, options?: CallOptions): Promise<void> {
    await this.#call('DELETE', `/v1/webhook-endpoints/${id(endpointId)}`, {}, undefined, options);
  }

  async listWebhookDeliveries(endpointId: number, options?: CallOptions): Promise<WebhookDelivery[]> {
    const path = `/v1/webhook-endpoints/${id(endpointId)}/deliveries`;
    return (await this.#call<{ data: WebhookDelivery[] }>('GET', path, {}, undefined, options)).data;
  }

  testWebhookEndpoint(endpointId: number, options?: CallOptions): Promise<WebhookTestQueued> {
    return this.#call(
      'POST',
      `/v1/webhook-endpoints/${id(endpointId)}/test`,
      {},
      undefined,
      options,
      UNKEYED,
    );
  }

  /** Enables a disabled endpoint again; an enabled one is answered as it is. */
  enableWebhookEndpoint(endpointId: number, options?: CallOptions): Promise<WebhookEndpoint> {
    const path = `/v1/webhook-endpoints/${id(endpointId)}/enable`;
    return this.#call('POST', path, {}, undefined, options, UNKEYED);
  }

  rotateWebhookSecret(endpointId: number, options?: CallOptions): Promise<WebhookEndpointWithSecret> {
    return this.#call(
      'POST',
      `/v1/webhook-endpoints/${id(endpointId)}/rotate-secret`,
      {},
      undefined,
      options,
      UNKEYED,
    );
  }

  async #call<T>(
    method: Method,
    path: string,
    query: Query,
    body: unknown,
    options: CallOptions = {},
    keyed = true,
  ): Promise<T> {
    // A dry run writes nothing, so it is as safe to send again as a read; a write the server
    // applies once per Idempotency-Key carries one, so sending it again cannot apply it twice.
    // Any other write may have been applied by an attempt without an answer: it is not resent.
    const read = method === 'GET' || query.dry_run === 'true';
    const once: Record<string, string> =
      read || !keyed ? {} : { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() };
    const resendable = read || once['idempotency-key'] !== undefined;
    // A query naming restaurant_id itself (getMe: none) keeps it; any other gets the call's or the default.
    const scoped =
      'restaurant_id' in query
        ? query
        : { ...query, restaurant_id: options.restaurantId ?? this.#restaurantId };
    const url = withQuery(path, scoped);
    for (let renewed = false; ; renewed = true) {
      const token = await abortable(() => this.tokens.getAccessToken(), options.signal);
      const held = method === 'GET' ? this.#revalidation.held(url) : undefined;
      const exchange: Exchange = {
        method,
        path: url,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          // fetch sends only gzip and deflate on plain HTTP by itself; it decodes all three.
          'accept-encoding': 'br, gzip',
          ...(held ? { 'if-none-match': held.etag } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...once,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        retryOn: resendable ? READ_RETRY : BEFORE_THE_WRITE,
        retryLost: resendable,
        signal: options.signal,
      };
      try {
        const answer = await send(this.#transport, exchange);
        if (method !== 'GET') return parse(answer) as T;
        if (held && answer.status === 304) return JSON.parse(held.text) as T;
        return this.#kept(url, answer) as T;
      } catch (error) {
        // A refused token is dropped and the call sent again once with a new one.
        if (!(error instanceof ComandaError) || error.status !== 401) throw error;
        this.tokens.invalidate?.(token);
        if (renewed) throw error;
      }
    }
  }

  /** A read's body, kept with its tag for the next read of the same path. */
  #kept(url: string, answer: Answer): unknown {
    const body = parse(answer);
    this.#revalidation.keep(url, answer.headers.get('etag'), answer.text);
    return body;
  }
}

/**
 * `start()`'s promise, or the signal's reason once it aborts: a caller stops waiting for a token whose
 * renewal (shared with the other callers, who keep waiting for it) is slow.
 */
function abortable<T>(start: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return start();
  // An aborted call asks for no token: it starts no exchange.
  if (signal.aborted) return Promise.reject(signal.reason);
  const promise = start();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * The next page's cursor, added to those `followed`: a missing one or one already followed (the
 * server's fault) throws, where following it would read pages already read, forever.
 */
function follow(followed: Set<string>, cursor: string | null, route: string): string {
  if (cursor === null || followed.has(cursor)) {
    throw new ComandaError(
      200,
      'unexpected_response',
      `${route}: the page ${cursor === null ? 'has more but no next_cursor' : 'handed back a next_cursor already followed'}; stopped rather than read the same pages again.`,
    );
  }
  followed.add(cursor);
  return cursor;
}

function id(value: number): string {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new TypeError(`Expected a positive integer id, got ${value}.`);
  return String(value);
}

const dryRunQuery = (dryRun: boolean | undefined): Query => (dryRun ? { dry_run: 'true' } : {});

function withQuery(path: string, query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

function parse(answer: Answer): unknown {
  if (answer.status === 204) return undefined;
  try {
    return JSON.parse(answer.text);
  } catch (cause) {
    throw new ComandaError(answer.status, 'unexpected_response', 'The answer is not JSON.', { cause });
  }
}
