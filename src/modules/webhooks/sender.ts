// One delivery attempt: a POST of the signed JSON body, with no redirect followed, a whole-exchange
// time limit, at most 1 KB of the answer read (the rest is dropped with the connection) and, unless
// WEBHOOK_ALLOW_PRIVATE, connections only to public addresses (url-safety.ts). Whatever the
// receiver does, the attempt ends with an outcome, never an exception.
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { describe } from '../../lib/network-errors.ts';
import { type HostResolver, isPublicAddress, publicOnlyLookup } from './url-safety.ts';

const ANSWER_BYTES = 1024;

export type Outcome = {
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the answer (UTF-8, a cut character and any NUL replaced). */
  body: string | null;
  error: string | null;
  ok: boolean;
};

type SenderOptions = {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Aborts every attempt in flight (the worker stopping). */
  stop?: AbortSignal;
  /** Resolves receivers' hosts (url-safety.ts's c-ares resolver unless given). */
  resolver?: HostResolver;
};

type Sender = {
  send(url: string, headers: Record<string, string>, body: string): Promise<Outcome>;
  close(): Promise<void>;
};

/**
 * The first 1 KB of the answer, and the error that cut it short if any (the time limit, a reset):
 * the status came before it, so the attempt keeps its status and the start read until then.
 */
async function readStart(
  body: AsyncIterable<Buffer> & { destroy(): void },
): Promise<{ text: string; error: unknown }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let error: unknown = null;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= ANSWER_BYTES) break;
    }
  } catch (err) {
    error = err;
  }
  body.destroy();
  // PostgreSQL text holds no NUL: one kept would fail the record of this attempt and of its batch.
  const text = Buffer.concat(chunks)
    .subarray(0, ANSWER_BYTES)
    .toString('utf8')
    .replaceAll('\u0000', '\ufffd');
  return { text, error };
}

export function createSender(options: SenderOptions): Sender {
  const agent = new Agent({
    connect: {
      timeout: options.timeoutMs,
      ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup(options.resolver) }),
    },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    // Connections are kept per receiver; a receiver that is slow to answer gets no pipelining.
    pipelining: 1,
  });
  return {
    async send(url, headers, body) {
      const started = performance.now();
      const elapsed = () => Math.round(performance.now() - started);
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      // A literal address is connected to without any lookup: it is judged here.
      if (!options.allowPrivate && isIP(host) && !isPublicAddress(host)) {
        return {
          statusCode: null,
          durationMs: 0,
          body: null,
          error: 'private or reserved address',
          ok: false,
        };
      }
      // One signal for the whole exchange, aborted by its timer or by stop, both let go at its
      // end (AbortSignal.timeout and .any would each keep a timer and a listener for the 10 s).
      const exchange = new AbortController();
      // undici notices the abort only once the connection is made (nodejs/undici#386): a TLS
      // handshake that never ends would hold the attempt, and a stop, until its connect timeout.
      // The attempt ends at the abort; the request, failed then or at that timeout, is let go.
      const ended = new Promise<never>((_, reject) =>
        exchange.signal.addEventListener('abort', () => reject(exchange.signal.reason), { once: true }),
      );
      ended.catch(() => {});
      const abort = () =>
        exchange.abort(new DOMException(`the exchange took over ${options.timeoutMs} ms`, 'TimeoutError'));
      const timer = setTimeout(abort, options.timeoutMs);
      const stopped = () => exchange.abort(new DOMException('the worker stopped', 'AbortError'));
      options.stop?.addEventListener('abort', stopped);
      try {
        if (options.stop?.aborted) stopped();
        const requested = request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'comanda-webhooks/1' },
          body,
          signal: exchange.signal,
        });
        requested.catch(() => {});
        const answer = await Promise.race([requested, ended]);
        // Any 2xx is a success: a body that then never ends, or ends in a reset, changes nothing.
        const { text, error } = await readStart(answer.body);
        const ok = answer.statusCode >= 200 && answer.statusCode < 300;
        return {
          statusCode: answer.statusCode,
          durationMs: elapsed(),
          body: text,
          error: error === null ? null : `the answer's body was cut: ${describe(error)}`.slice(0, 500),
          ok,
        };
      } catch (err) {
        return {
          statusCode: null,
          durationMs: elapsed(),
          body: null,
          error: describe(err).slice(0, 500),
          ok: false,
        };
      } finally {
        clearTimeout(timer);
        options.stop?.removeEventListener('abort', stopped);
      }
    },
    // Once every attempt has ended: destroy, not close, which would wait for a connection still
    // being made for an attempt that ended at its abort.
    close: () => agent.destroy(),
  };
}
