// Access tokens for an API key (contract 4.1, 5): exchange the key once, then refresh 60 s
// before expiry (computed from each answer's `expires_in`). Refresh tokens are single use and a
// reuse revokes the whole family, so every refresh here is single-flight: concurrent callers
// share one request, and a refresh token is never sent twice, not even after a lost answer
// (the manager then starts a new family with the API key instead).
import { type Answer, ComandaError } from './errors.ts';
import { type ClientLogEvent, DEFAULT_RETRY, READ_RETRY, send, sleep, type Transport } from './transport.ts';

const RATE_LIMITED = new Set([429]);
const SERVER_FAILURES = new Set([502, 503]);
const NONE = new Set<number>();
/** After a failed renewal while the access token still works: the pause before the next one. */
const TRANSIENT_PAUSE_SECONDS = 5;

export type TokenSet = {
  accessToken: string;
  /** Persist it: it is the only one that still works (the one before was consumed). */
  refreshToken: string | undefined;
  /** Epoch milliseconds, from the `expires_in` of the answer. */
  expiresAt: number;
  scope: string;
};

export type TokenManagerOptions = {
  /** The service address, without /v1 (e.g. http://127.0.0.1:3000). */
  baseUrl: string;
  apiKey: string;
  /** Narrows the key's scopes; never widens them. */
  scope?: string | readonly string[];
  /** A refresh token persisted by `onTokens` in an earlier run, to continue its family. */
  refreshToken?: string;
  /** Called (and awaited) after every exchange or refresh, before the new token is used. */
  onTokens?: (tokens: TokenSet) => void | Promise<void>;
  /**
   * Called (and awaited) when a refresh got no answer (lost connection, timeout, 5xx): its refresh
   * token may be consumed on the server, where sending it again revokes the family and the key's
   * access tokens. Delete the one `onTokens` persisted, so that a restart exchanges the API key.
   * Called too when `onTokens` failed after a refresh: the persisted one is then consumed.
   */
  onRefreshTokenDropped?: () => void | Promise<void>;
  /** Seconds before expiry to refresh (default 60; at most half the token lifetime). */
  refreshMarginSeconds?: number;
  fetch?: typeof fetch;
  timeoutMs?: number;
  logger?: (event: ClientLogEvent) => void;
  now?: () => number;
};

type TokenAnswer = { access_token: string; expires_in: number; refresh_token?: string; scope: string };

const FAMILY_REVOKED =
  'The refresh token was refused (invalid_grant): it expired, its API key was revoked, or it was already used, which revokes the whole token family and the access tokens of the key. Check that no other process refreshes with the same tokens, then call reset() to exchange the API key again.';

export class TokenManager {
  readonly #apiKey: string;
  readonly #scope: string | undefined;
  readonly #onTokens: TokenManagerOptions['onTokens'];
  readonly #onDropped: TokenManagerOptions['onRefreshTokenDropped'];
  readonly #margin: number;
  readonly #now: () => number;
  readonly #transport: Transport;
  #refreshToken: string | undefined;
  #access: { token: string; refreshAt: number; expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;
  /** Moved by reset(): a renewal started before it keeps nothing. */
  #generation = 0;
  #refused: ComandaError | undefined;
  /** After a 429 or a failed renewal: no token request before then while the token is usable. */
  #notBefore = 0;

  constructor(options: TokenManagerOptions) {
    this.#apiKey = options.apiKey;
    this.#scope = typeof options.scope === 'string' ? options.scope : options.scope?.join(' ');
    this.#refreshToken = options.refreshToken;
    this.#onTokens = options.onTokens;
    this.#onDropped = options.onRefreshTokenDropped;
    this.#margin = options.refreshMarginSeconds ?? 60;
    this.#now = options.now ?? Date.now;
    this.#transport = {
      baseUrl: options.baseUrl,
      fetch: options.fetch ?? globalThis.fetch,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: DEFAULT_RETRY,
      log: options.logger,
      sleep,
    };
  }

  /** A valid access token: the current one, or one fresh from a single shared refresh. */
  getAccessToken(): Promise<string> {
    const now = this.#now();
    if (this.#access && (now < this.#access.refreshAt || (now < this.#notBefore && this.#usable())))
      return Promise.resolve(this.#access.token);
    if (this.#pending) return this.#pending;
    const pending = this.#renew(this.#generation)
      .catch((error) => this.#fallback(error))
      .finally(() => {
        if (this.#pending === pending) this.#pending = undefined;
      });
    this.#pending = pending;
    return pending;
  }

  /** The server refused `token` (401): the next call renews, unless another call already did. */
  invalidate(token: string): void {
    if (this.#access?.token === token) this.#access = undefined;
  }

  /**
   * Forgets every token: the next call exchanges the API key (a new family). A renewal still in
   * flight answers the calls that were waiting for it, but its tokens are neither kept nor persisted.
   */
  reset(): void {
    this.#generation++;
    this.#pending = undefined;
    this.#access = undefined;
    this.#refreshToken = undefined;
    this.#refused = undefined;
    this.#notBefore = 0;
  }

  toJSON() {
    return { hasRefreshToken: this.#refreshToken !== undefined, expiresAt: this.#access?.expiresAt ?? null };
  }

  async #renew(generation: number): Promise<string> {
    if (this.#refused) throw this.#refused;
    const refreshToken = this.#refreshToken;
    if (refreshToken === undefined) return this.#exchange(generation);
    // From here this refresh token counts as sent: whatever happens, it is not sent again...
    this.#refreshToken = undefined;
    try {
      return await this.#grant('refresh_token', { refresh_token: refreshToken }, generation);
    } catch (error) {
      if (!(error instanceof ComandaError)) throw error;
      // After reset() this renewal decides nothing: its error goes to the calls that waited for it.
      if (generation !== this.#generation) throw error;
      // Answered, its tokens kept in memory, but onTokens failed: the persisted one is consumed.
      if (error.key === 'token_persistence_failed') {
        await this.#dropped();
        throw error;
      }
      if (error.key === 'invalid_grant') throw this.#refuse(error);
      // ...except after a 429, which the server answers before the grant runs.
      if (error.status === 429) this.#refreshToken = refreshToken;
      if (error.status >= 400 && error.status < 500) throw error;
      // No answer or a server failure: the token may be consumed. A new family is safe, a resend is not.
      this.#transport.log?.({ type: 'refresh_abandoned', reason: error.key });
      await this.#dropped();
      return this.#exchange(generation).catch((failure: unknown) => {
        throw failure instanceof ComandaError ? sessionLost(failure) : failure;
      });
    }
  }

  /** Tells the persistence the refresh token is gone, before anything else can fail. */
  async #dropped(): Promise<void> {
    try {
      await this.#onDropped?.();
    } catch (cause) {
      throw new ComandaError(
        0,
        'token_persistence_failed',
        'onRefreshTokenDropped failed: the persisted refresh token may be consumed; delete it before a restart uses it (this manager exchanges the API key).',
        { cause },
      );
    }
  }

  #exchange(generation: number): Promise<string> {
    return this.#grant('api_key', { api_key: this.#apiKey, scope: this.#scope }, generation);
  }

  /**
   * What a token request retries. A key exchange may be repeated (it only starts another family); a
   * refresh may not. While the current token is usable a 429 is not waited for: calls go on with it.
   */
  #retryOn(grant: 'api_key' | 'refresh_token'): Set<number> {
    if (grant === 'api_key') return this.#usable() ? SERVER_FAILURES : READ_RETRY;
    return this.#usable() ? NONE : RATE_LIMITED;
  }

  /** Whether the current access token has time left (5 s, for the call that uses it). */
  #usable(): boolean {
    return this.#access !== undefined && this.#now() < this.#access.expiresAt - 5000;
  }

  /** A transient failure while the current token has time left: keep using it. */
  #fallback(error: unknown): string {
    const access = this.#access;
    const transient =
      error instanceof ComandaError &&
      error.key !== 'token_persistence_failed' &&
      (error.status === 0 || error.status === 429 || error.status >= 500);
    if (!transient || !access || !this.#usable()) throw error;
    // The next token request waits: Retry-After after a 429, a few seconds after a failure (an
    // outage of the token endpoint is not met with one request per call).
    const seconds = error.status === 429 ? (error.retryAfter ?? 1) : TRANSIENT_PAUSE_SECONDS;
    this.#notBefore = this.#now() + seconds * 1000;
    return access.token;
  }

  #refuse(error: ComandaError): ComandaError {
    this.#access = undefined;
    this.#refused = new ComandaError(error.status, 'invalid_grant', FAMILY_REVOKED, {
      errorId: error.errorId,
      body: error.body,
    });
    return this.#refused;
  }

  async #grant(
    grant: 'api_key' | 'refresh_token',
    fields: Record<string, string | undefined>,
    generation: number,
  ): Promise<string> {
    const form = new URLSearchParams({ grant_type: grant });
    for (const [name, value] of Object.entries(fields)) if (value) form.set(name, value);
    const sentAt = this.#now();
    let answer: TokenAnswer;
    try {
      const response = await send(this.#transport, {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: form.toString(),
        retryOn: this.#retryOn(grant),
        retryLost: grant === 'api_key',
      });
      answer = tokenAnswer(response);
    } catch (error) {
      this.#transport.log?.({ type: 'tokens', grant, outcome: 'failed', key: (error as ComandaError).key });
      throw error;
    }
    this.#transport.log?.({ type: 'tokens', grant, outcome: 'issued' });
    return this.#keep(answer, sentAt, generation);
  }

  async #keep(answer: TokenAnswer, sentAt: number, generation: number): Promise<string> {
    // Asked for before reset(): the waiting calls get the access token, the manager keeps nothing.
    if (generation !== this.#generation) return answer.access_token;
    const expiresAt = sentAt + answer.expires_in * 1000;
    const margin = Math.min(this.#margin, answer.expires_in / 2) * 1000;
    this.#access = { token: answer.access_token, expiresAt, refreshAt: expiresAt - margin };
    this.#refreshToken = answer.refresh_token;
    const tokens = {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      expiresAt,
      scope: answer.scope,
    };
    try {
      await this.#onTokens?.(tokens);
    } catch (cause) {
      throw new ComandaError(
        0,
        'token_persistence_failed',
        'onTokens failed: the new refresh token was not persisted (it is kept in memory).',
        { cause },
      );
    }
    return answer.access_token;
  }
}

/** The exchange after a lost refresh failed too: same status and key, saying what was lost. */
function sessionLost(error: ComandaError): ComandaError {
  return new ComandaError(
    error.status,
    error.key,
    `A refresh got no answer, so its refresh token was dropped (it may be consumed: sending it again would revoke the token family), and the API key exchange that starts a new session failed: ${error.message} The next call exchanges the API key again.`,
    {
      errorId: error.errorId,
      errors: error.errors,
      retryAfter: error.retryAfter,
      body: error.body,
      cause: error,
    },
  );
}

function tokenAnswer(response: Answer): TokenAnswer {
  let answer: any;
  try {
    answer = JSON.parse(response.text);
  } catch {
    answer = undefined;
  }
  if (typeof answer?.access_token !== 'string' || typeof answer.expires_in !== 'number') {
    throw new ComandaError(
      response.status,
      'unexpected_response',
      'The token endpoint answered without a token.',
    );
  }
  return answer;
}
