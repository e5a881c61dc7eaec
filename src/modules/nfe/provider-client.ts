// The one call to the fiscal provider (fiscal-provider.md, contract 8): 15 s for the whole
// exchange, 5 MiB of body at most, no redirects, at most PROVIDER_CONCURRENCY exchanges at once per
// instance (each holds a body and its transcoding: up to about 11 MiB), the wait for one counted in
// the 15 s. Every failure is logged here (status and a
// truncated body, never the token) and surfaces as the fixed 502 fiscal_upstream_error. The
// body is transcoded straight to the detail's bytes, or parsed when that path leaves it.
import { request } from 'undici';
import { errors } from '../../http/errors.ts';
import { releaseBuffer } from '../../lib/release-buffer.ts';
import type { Slots } from '../../lib/slots.ts';
import { type ProviderObject, parseProviderJson } from './provider-json.ts';
import { assertProviderDocument } from './provider-mapping.ts';
import { type TranscodedDetail, transcodeProviderBody } from './provider-transcode.ts';

export type ProviderLogger = { warn: (details: Record<string, unknown>, message: string) => void };

export type FetchReceivedNfeOptions = {
  baseUrl: string;
  token: string;
  accessKey: string;
  timeoutMs?: number;
  maxBytes?: number;
  logger: ProviderLogger;
  /** The instance's exchanges (createSlots(PROVIDER_CONCURRENCY)); none: no limit. */
  slots?: Slots;
};

export const PROVIDER_TIMEOUT_MS = 15_000;
export const PROVIDER_MAX_BYTES = 5 * 1024 * 1024;
/** Exchanges in flight per instance: a burst of 5 MiB documents holds at most about 90 MiB. */
export const PROVIDER_CONCURRENCY = 8;
const LOGGED_BODY_CHARS = 500;

class ProviderFailure extends Error {
  readonly status?: number;
  readonly body?: string;

  constructor(reason: string, status?: number, body?: string) {
    super(reason);
    this.status = status;
    this.body = body;
  }
}

/** The provider's answer: transcoded straight to the detail's bytes, or parsed (the bodies the fast path leaves). */
export type ProviderAnswer = { transcoded: TranscodedDetail } | { document: ProviderObject };

/** The provider's answer to the detail's query; throws AppError 502 on any failure. */
export async function fetchProviderAnswer(options: FetchReceivedNfeOptions): Promise<ProviderAnswer> {
  const { baseUrl, token, accessKey, logger } = options;
  const timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? PROVIDER_MAX_BYTES;
  const mask = (text: string) => (token ? text.split(token).join('***') : text);
  let received: { status: number; body: Buffer } | undefined;
  const signal = AbortSignal.timeout(timeoutMs);
  let release: (() => void) | undefined;
  try {
    if (!/^\d{44}$/.test(accessKey)) throw new Error('access key is not 44 digits');
    const url = `${baseUrl.replace(/\/+$/, '')}/v2/nfes_recebidas/${accessKey}.json?completa=1`;
    release = await options.slots?.acquire(signal).catch((reason) => {
      throw new ProviderFailure(`no exchange free within the time limit (${describe(reason)})`);
    });
    received = await exchange(url, token, signal, maxBytes);
    const transcoded = transcodeProviderBody(received.body);
    if (transcoded) return { transcoded };
    const document = parseProviderJson(received.body);
    assertProviderDocument(document);
    return { document };
  } catch (error) {
    const failure = error instanceof ProviderFailure ? error : undefined;
    const body = failure ? failure.body : received?.body.toString('utf8', 0, LOGGED_BODY_CHARS);
    logger.warn(
      {
        provider_status: failure?.status ?? received?.status ?? null,
        provider_body: body === undefined ? null : mask(body),
        access_key: accessKey,
        reason: mask(describe(error)),
      },
      'fiscal provider query failed',
    );
    throw errors.fiscalUpstream();
  } finally {
    release?.();
    // Transcoded, parsed or logged: nothing reads the body any more (readCapped allocated it).
    if (received) releaseBuffer(received.body);
  }
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
    const excerpt = await readCapped(body, LOGGED_BODY_CHARS).catch(() => Buffer.alloc(0));
    const reason = statusCode >= 300 && statusCode < 400 ? 'redirect not followed' : 'unexpected status';
    throw new ProviderFailure(
      declared > maxBytes ? 'body over the size limit' : reason,
      statusCode,
      excerpt.toString(),
    );
  }
  const content = await readCapped(body, maxBytes + 1, declared);
  if (content.length > maxBytes) throw new ProviderFailure('body over the size limit', statusCode);
  return { status: statusCode, body: content };
}

/**
 * Reads at most `limit` bytes, then destroys the stream so the rest is never downloaded. With a
 * declared length the chunks are copied into one buffer as they come: the body is never held
 * twice (chunks, then their concatenation).
 */
async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
  declared = NaN,
) {
  let into = declared >= 0 && declared < limit ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (into && size + chunk.length <= into.length) {
      chunk.copy(into, size);
      size += chunk.length;
      continue;
    }
    if (into) chunks.push(into.subarray(0, size));
    into = null;
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      return Buffer.concat(chunks).subarray(0, limit);
    }
  }
  return into ? into.subarray(0, size) : Buffer.concat(chunks);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string'
    ? `${error.name} ${code}: ${error.message}`
    : `${error.name}: ${error.message}`;
}
