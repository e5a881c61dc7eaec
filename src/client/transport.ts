// One HTTP exchange with bounded retries. Only what is safe is retried: a read (GET), and a write
// carrying an Idempotency-Key (the server applies it at most once), on 429, 502, 503, a timeout or
// a lost connection; and a token request on 429 (answered before the grant runs). A write that
// still has no answer has an unknown outcome: sent again with the same key, it is applied at most
// once. An answer counts once it is read whole: a timeout or a lost connection while its body is
// read is the same failure as one before its headers, retried (or not) on the same terms.
import { type Answer, ComandaError, errorFromAnswer, maskSecrets } from './errors.ts';

export type ClientLogEvent =
  | { type: 'retry'; method: string; path: string; status: number | null; attempt: number; delayMs: number }
  | { type: 'tokens'; grant: 'api_key' | 'refresh_token'; outcome: 'issued' | 'failed'; key?: string }
  | { type: 'refresh_abandoned'; reason: string };

export type RetryPolicy = {
  /** Further attempts after the first (default 3). */
  retries: number;
  /** First backoff for 502/503 and lost connections, doubled each time (default 250 ms). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the 429 is thrown (default 60 s). */
  maxRetryAfterSeconds: number;
};

export type Transport = {
  baseUrl: string;
  fetch: typeof fetch;
  timeoutMs: number;
  retry: RetryPolicy;
  log?: (event: ClientLogEvent) => void;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
};

export type Exchange = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Statuses worth another attempt; empty for writes. */
  retryOn: ReadonlySet<number>;
  /** Whether a lost connection or a timeout may be retried (reads only). */
  retryLost: boolean;
  signal?: AbortSignal;
};

export const READ_RETRY = new Set([429, 502, 503]);

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 250,
  maxDelayMs: 5000,
  maxRetryAfterSeconds: 60,
};

/** Waits `ms`, or rejects with the signal's reason; either way its listener leaves the signal. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', abort, { once: true });
  });
}

function backoff(policy: RetryPolicy, attempt: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** An answer whose headers came but whose body could not be read whole (cut, corrupt coding). */
class UnreadBody extends Error {
  readonly status: number;
  constructor(status: number, cause: unknown) {
    super(`the ${status} answer's body could not be read`, { cause });
    this.status = status;
  }
}

/** The error's message with its causes' (fetch's "terminated" says nothing without its cause). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let at = error, depth = 0; at !== undefined && depth < 4; depth++) {
    parts.push(at instanceof Error ? at.message : String(at));
    at = at instanceof Error ? at.cause : undefined;
  }
  return parts.join(': ');
}

function lost(error: unknown, exchange: Exchange, timedOut: boolean): ComandaError {
  const status = error instanceof UnreadBody ? error.status : undefined;
  if (error instanceof UnreadBody) error = error.cause;
  const reason = describe(error);
  const what =
    status === undefined
      ? `no answer (${reason})`
      : `the ${status} answer's body could not be read (${reason})`;
  const key = exchange.headers['idempotency-key'];
  if (key !== undefined) {
    return new ComandaError(
      0,
      'outcome_unknown',
      `${exchange.method} ${exchange.path}: ${what}; the write may or may not have been applied. Send it again with { idempotencyKey: '${key}' } to apply it at most once.`,
      { cause: error },
    );
  }
  if (exchange.retryLost) {
    const key = timedOut ? 'timeout' : 'network_error';
    return new ComandaError(0, key, `${exchange.method} ${exchange.path}: ${what}.`, {
      cause: error,
    });
  }
  return new ComandaError(
    0,
    'outcome_unknown',
    `${exchange.method} ${exchange.path}: ${what}; the write may or may not have been applied. Re-read before sending it again.`,
    { cause: error },
  );
}

export async function send(t: Transport, exchange: Exchange): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const timeout = AbortSignal.timeout(t.timeoutMs);
    const signal = exchange.signal ? AbortSignal.any([exchange.signal, timeout]) : timeout;
    let outcome: Answer | { retryStatus: number; delayMs: number };
    try {
      outcome = await exchangeOnce(t, exchange, signal, attempt);
    } catch (error) {
      if (exchange.signal?.aborted) throw exchange.signal.reason;
      const failure = lost(error, exchange, timeout.aborted);
      if (!exchange.retryLost || attempt >= t.retry.retries) throw failure;
      await pause(t, exchange, null, attempt, backoff(t.retry, attempt));
      continue;
    }
    if ('retryStatus' in outcome) {
      await pause(t, exchange, outcome.retryStatus, attempt, outcome.delayMs);
      continue;
    }
    // 304: the answer to a read sent with If-None-Match; the caller holds its body.
    if ((outcome.status >= 200 && outcome.status < 300) || outcome.status === 304) return outcome;
    throw errorFromAnswer(outcome);
  }
}

/** One attempt: the answer read whole within the attempt's signal, or the wait before the next one. */
async function exchangeOnce(
  t: Transport,
  exchange: Exchange,
  signal: AbortSignal,
  attempt: number,
): Promise<Answer | { retryStatus: number; delayMs: number }> {
  const response = await t.fetch(`${t.baseUrl.replace(/\/+$/, '')}${exchange.path}`, {
    method: exchange.method,
    headers: exchange.headers,
    body: exchange.body,
    signal,
    redirect: 'manual',
  });
  const delayMs = attempt < t.retry.retries ? retryDelay(t.retry, exchange, response, attempt) : undefined;
  if (delayMs !== undefined) {
    await response.body?.cancel();
    return { retryStatus: response.status, delayMs };
  }
  const { status, statusText, headers } = response;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // A timeout or an abort while the body is read stays what it is (timeout, the caller's reason).
    if (signal.aborted) throw error;
    throw new UnreadBody(status, error);
  }
  // The same key's first request still runs (this one may be the resend of a lost answer): once
  // it ends, the key replays its answer.
  if (status === 409 && exchange.headers['idempotency-key'] !== undefined && attempt < t.retry.retries) {
    const inUse = errorFromAnswer({ status, statusText, headers, text }).key === 'idempotency_key_in_use';
    const delayMs = inUse ? afterHeader(t.retry, headers, attempt) : undefined;
    if (delayMs !== undefined) return { retryStatus: status, delayMs };
  }
  return { status, statusText, headers, text };
}

/** The wait before sending again after this answer; undefined when it is the final one. */
function retryDelay(
  policy: RetryPolicy,
  exchange: Exchange,
  response: Response,
  attempt: number,
): number | undefined {
  if (response.ok || !exchange.retryOn.has(response.status)) return undefined;
  return afterHeader(policy, response.headers, attempt);
}

/** The answer's Retry-After, or the backoff without one; undefined beyond the policy's bound. */
function afterHeader(policy: RetryPolicy, headers: Headers, attempt: number): number | undefined {
  const header = headers.get('retry-after');
  if (header === null || !/^\d+$/.test(header)) return backoff(policy, attempt);
  // A Retry-After beyond the bound is not waited for: the answer is thrown.
  return Number(header) > policy.maxRetryAfterSeconds ? undefined : Number(header) * 1000;
}

async function pause(
  t: Transport,
  exchange: Exchange,
  status: number | null,
  attempt: number,
  delayMs: number,
) {
  const path = maskSecrets(exchange.path);
  t.log?.({ type: 'retry', method: exchange.method, path, status, attempt: attempt + 1, delayMs });
  await t.sleep(delayMs, exchange.signal);
}
