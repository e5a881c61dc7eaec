// The one call to the fiscal provider (fiscal-provider.md, contract 8): 15 s for the whole
// exchange (the wait for one of PROVIDER_CONCURRENCY slots and the mapping included), 5 MiB of
// body at most, no redirects. The body, read into memory of its own, is parsed and mapped by
// `mapBody` (detail-pool.ts), which may move it. Every failure is logged here (status and a body
// excerpt, never the token in any form: src/lib/secret-forms.ts) and answers the 502
// fiscal_upstream_error, saying whether the provider could be reached (lib/network-errors.ts).
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { errors } from '../../http/errors.ts';
import { describe, isUnreachable } from '../../lib/network-errors.ts';
import { redact, secretForms } from '../../lib/secret-forms.ts';
import type { Slots } from '../../lib/slots.ts';
import { type MappedProviderBody, mapProviderBody } from './provider-mapping.ts';

type FetchReceivedNfeOptions = {
  baseUrl: string;
  token: string;
  accessKey: string;
  timeoutMs?: number;
  maxBytes?: number;
  logger: { warn: (details: Record<string, unknown>, message: string) => void };
  /** The instance's exchanges (createSlots(PROVIDER_CONCURRENCY)); none: no limit. */
  slots?: Slots;
  /** Parses and maps the body (detail-pool.ts: in a worker for large ones, moved); default: here. */
  mapBody?: (body: Buffer, signal: AbortSignal, move: boolean) => Promise<MappedProviderBody>;
};

const PROVIDER_TIMEOUT_MS = 15_000;
const PROVIDER_MAX_BYTES = 5 * 1024 * 1024;
/** Exchanges in flight per instance: a burst of 5 MiB documents holds at most about 90 MiB. */
export const PROVIDER_CONCURRENCY = 8;
const LOGGED_BODY_CHARS = 500;
/** Enough to hold a secret that starts before the logged length ends (tokens are short). */
const EXCERPT_BYTES = LOGGED_BODY_CHARS + 4096;

class ProviderFailure extends Error {
  readonly status?: number;
  readonly body?: string;

  constructor(reason: string, status?: number, body?: string) {
    super(reason);
    this.status = status;
    this.body = body;
  }
}

/** The provider's answer to the detail's query, mapped; throws AppError 502 on any failure. */
export async function fetchProviderAnswer(options: FetchReceivedNfeOptions): Promise<MappedProviderBody> {
  const { baseUrl, token, accessKey, logger } = options;
  const timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? PROVIDER_MAX_BYTES;
  const forms = secretForms(token);
  const mapBody = options.mapBody ?? (async (body: Buffer) => mapProviderBody(body));
  let received: { status: number; body: Buffer } | undefined;
  const signal = AbortSignal.timeout(timeoutMs);
  let release: (() => void) | undefined;
  let excerpt: string | undefined;
  try {
    if (!/^\d{44}$/.test(accessKey)) throw new Error('access key is not 44 digits');
    const url = `${baseUrl.replace(/\/+$/, '')}/v2/nfes_recebidas/${accessKey}.json?completa=1`;
    release = await options.slots?.acquire(signal).catch((reason) => {
      throw new ProviderFailure(`no exchange free within the time limit (${describe(reason)})`);
    });
    received = await exchange(url, token, signal, maxBytes);
    excerpt = received.body.toString('utf8', 0, EXCERPT_BYTES);
    const mapped = await mapBody(received.body, signal, true);
    const other = mapped.keys.find((key) => key !== accessKey);
    // Masked before the cut: a cut that halves a secret would leave its first part unmasked.
    if (other !== undefined) {
      throw new Error(`the document names another access key (${redact(other, forms).slice(0, 60)})`);
    }
    return mapped;
  } catch (error) {
    const failure = error instanceof ProviderFailure ? error : undefined;
    // Read past the logged length and masked before the cut: a secret the cut would halve is seen whole.
    const body = failure ? failure.body : excerpt;
    logger.warn(
      {
        provider_status: failure?.status ?? received?.status ?? null,
        provider_body: body === undefined ? null : redact(body, forms).slice(0, LOGGED_BODY_CHARS),
        access_key: accessKey,
        reason: reasonOf(error, forms),
      },
      'fiscal provider query failed',
    );
    throw errors.fiscalUpstream(isUnreachable(error));
  } finally {
    release?.();
  }
}

/**
 * The failure in one line, every form of the token masked. JSON.parse's message quotes the body
 * around the fault, cut to about ten characters each side: a cut of the token that masking the
 * whole token cannot find. A body that is not JSON is said with the fault's position only.
 */
function reasonOf(error: unknown, forms: string[]): string {
  if (error instanceof Error && error.name === 'SyntaxError') {
    const at = /at position \d+/.exec(error.message)?.[0];
    return `SyntaxError: the body is not valid JSON${at ? ` (${at})` : ''}`;
  }
  return redact(describe(error), forms);
}

async function exchange(url: string, token: string, signal: AbortSignal, maxBytes: number) {
  const authorization = `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
  const response = await request(url, {
    method: 'GET',
    headers: { authorization, accept: 'application/json' },
    signal,
  });
  const { statusCode, body } = response;
  const declared = Number(response.headers['content-length']);
  if (statusCode < 200 || statusCode > 299 || declared > maxBytes) {
    const chunks: Buffer[] = [];
    await collect(body, EXCERPT_BYTES, chunks).catch(() => {});
    const reason = statusCode >= 300 && statusCode < 400 ? 'redirect not followed' : 'unexpected status';
    throw new ProviderFailure(
      declared > maxBytes ? 'body over the size limit' : reason,
      statusCode,
      excerptOf(chunks),
    );
  }
  const chunks: Buffer[] = [];
  // A body cut or stalled past the time limit after the status came: that status and what came
  // of the body go to the log, as for any other answer.
  const size = await collect(body, maxBytes, chunks).catch((error: unknown) => {
    throw new ProviderFailure(`body not read whole (${describe(error)})`, statusCode, excerptOf(chunks));
  });
  if (size > maxBytes) throw new ProviderFailure('body over the size limit', statusCode, excerptOf(chunks));
  // Joined once, into memory of its own: a large body can be moved to a worker.
  const content = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(content, at);
  return { status: statusCode, body: content };
}

/** The first EXCERPT_BYTES of what was read, as text (the log masks and cuts it); only those are copied. */
function excerptOf(chunks: Buffer[]): string {
  const size = chunks.reduce((total, chunk) => total + chunk.length, 0);
  return Buffer.concat(chunks, Math.min(size, EXCERPT_BYTES)).toString();
}

/**
 * The body's chunks as they come, into `chunks`, until it ends or passes `limit` bytes (then it is
 * destroyed, so the rest is never downloaded); its size. On an error `chunks` holds what came
 * before it. The stream flows: a fast sender's queued megabytes are never joined on the loop in
 * one go, as an async iterator's reads would.
 */
function collect(body: Readable, limit: number, chunks: Buffer[]): Promise<number> {
  let size = 0;
  return new Promise((resolve, reject) => {
    const done = () => {
      body.off('data', onData);
      resolve(size);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        body.destroy();
        done();
      }
    };
    body.on('data', onData).once('end', done).once('error', reject);
  });
}
