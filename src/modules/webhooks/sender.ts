// One delivery attempt: a POST of the signed JSON body, with no redirect followed, a whole-exchange
// time limit, at most 1 KB of the answer read (the rest is dropped with the connection) and, unless
// WEBHOOK_ALLOW_PRIVATE, connections only to public addresses (url-safety.ts). Whatever the
// receiver does, the attempt ends with an outcome, never an exception.
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { describe } from '../../lib/network-errors.ts';
import { isPublicAddress, publicOnlyLookup } from './url-safety.ts';

export const ANSWER_BYTES = 1024;

export type Outcome = {
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the answer (UTF-8, a cut character replaced). */
  body: string | null;
  error: string | null;
  ok: boolean;
};

export type SenderOptions = {
  allowPrivate: boolean;
  timeoutMs: number;
  /** Aborts every attempt in flight (the worker stopping). */
  stop?: AbortSignal;
};

export type Sender = {
  send(url: string, headers: Record<string, string>, body: string): Promise<Outcome>;
  close(): Promise<void>;
};

async function readStart(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= ANSWER_BYTES) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, ANSWER_BYTES).toString('utf8');
}

export function createSender(options: SenderOptions): Sender {
  const agent = new Agent({
    connect: { timeout: options.timeoutMs, ...(options.allowPrivate ? {} : { lookup: publicOnlyLookup }) },
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
      try {
        const answer = await request(url, {
          method: 'POST',
          dispatcher: agent,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'comanda-webhooks/1' },
          body,
          signal: AbortSignal.any([
            AbortSignal.timeout(options.timeoutMs),
            ...(options.stop ? [options.stop] : []),
          ]),
        });
        const text = await readStart(answer.body);
        const ok = answer.statusCode >= 200 && answer.statusCode < 300;
        return { statusCode: answer.statusCode, durationMs: elapsed(), body: text, error: null, ok };
      } catch (err) {
        return {
          statusCode: null,
          durationMs: elapsed(),
          body: null,
          error: describe(err).slice(0, 500),
          ok: false,
        };
      }
    },
    close: () => agent.close(),
  };
}
