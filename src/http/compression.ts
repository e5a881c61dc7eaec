// Response compression: br or gzip as Accept-Encoding asks, for JSON answers of 1 KB or more (a
// 164 KB menu is about 7 KB compressed). Smaller answers go as they are: compressing them saves
// less than the work costs. Every answer says `Vary: accept-encoding`, so a shared cache never
// hands a compressed body to a client that did not ask for one, nor the reverse.
//
// Bodies kept by a cache (the listing, cash-flow pages, the NF-e list: one Buffer per data
// version) are compressed once per encoding and Buffer, and the compressed form is held as long
// as the cache holds the Buffer (a WeakMap: nothing to evict, nothing counted twice). Caches of
// answers pack them as gzip (`keptBodies`): a body read back from its packed form is sent to a
// client that takes gzip as those very bytes, neither inflated nor compressed again. The menu's
// body is made per request (its head carries the instant it was evaluated at): one known to be
// short is sent as it is; a longer one goes as gzip, its head compressed per request and its rest
// at most twice per ETag (SplitBody), or, for a client that takes only br, gathered and compressed in one
// call. Once its rest is kept at the default level, the route answers a gzip client with it before
// making the body (keptSplit): the menu's catalog is neither loaded nor planned. Strings (bodies
// of the schema serialisers) and bodies rendered for one answer (json-reply.ts sendRenderedJson)
// are left to @fastify/compress.
import { Readable } from 'node:stream';
import v8 from 'node:v8';
import { brotliCompressSync, constants, gunzipSync, gzipSync } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import { Counter } from 'prom-client';
import { exact, type Packing } from '../lib/versioned-cache.ts';
import { renderedOnce } from './json-reply.ts';

/** Bodies under this many bytes are never compressed. */
const COMPRESS_MIN_BYTES = 1024;

export const ENCODINGS = ['br', 'gzip'] as const;
type Encoding = (typeof ENCODINGS)[number];
// Brotli's quality 11 takes a hundred times longer than 4 for a few percent fewer bytes.
const BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } };

const held = new WeakMap<Buffer, Partial<Record<Encoding, Buffer>>>();

const compressions = new Counter({
  name: 'http_body_compressions_total',
  help: 'Response bodies compressed here, by encoding (a cached body once per data version)',
  labelNames: ['encoding'],
});

const splitReads = new Counter({
  name: 'compressed_menu_reads_total',
  help: 'Gzipped split bodies (menus) by where their rest came from: kept for the ETag before the body was made, or compressed',
  labelNames: ['source'],
});

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The answer, as gzip, of a split body whose rest this instance keeps at the default level for
     * the reply's ETag, when the request takes gzip: `head()` compressed for it, then that rest.
     * Undefined otherwise: the route makes its body.
     */
    keptSplit(request: FastifyRequest, reply: FastifyReply, head: () => Buffer): Buffer | undefined;
  }
}

// A menu tail read once: gzip's level 3 (see sendSplit).
const FIRST_READ = { level: 3 };

function encode(body: Buffer, encoding: Encoding, gzip?: typeof FIRST_READ): Buffer {
  compressions.inc({ encoding });
  return encoding === 'br' ? brotliCompressSync(body, BROTLI) : gzipSync(body, gzip);
}

/** The body in `encoding`, compressed on the first ask for this Buffer. */
function compressedOnce(body: Buffer, encoding: Encoding): Buffer {
  let forms = held.get(body);
  if (!forms) {
    forms = {};
    held.set(body, forms);
  }
  let encoded = forms[encoding];
  if (!encoded) {
    encoded = encode(body, encoding);
    forms[encoding] = encoded;
  }
  return encoded;
}

/** An answer's bytes kept by a cache (lib/versioned-cache.ts) for the data version they were read at. */
export type KeptBody = { version: number; body: Buffer };

/** The body of an answer unpacked from `gzip`, which a gzip client is then sent as it is. */
function gunzipped(gzip: Buffer, length: number): Buffer {
  const body = exact(gunzipSync(gzip, { chunkSize: Math.max(64, length) }));
  held.set(body, { gzip });
  return body;
}

/**
 * The options of a packed cache of answers: each packed as gzip (the compressed form a gzip
 * client is sent, made once), and counted with its key (a text key of a hundred bytes or so).
 */
export const keptBodies: {
  packed: true;
  packing: Packing<KeptBody>;
  sizeOf: (kept: KeptBody) => number;
} = {
  packed: true,
  packing: {
    pack: ({ body }) => ({ packed: compressedOnce(body, 'gzip'), length: body.length }),
    unpack: (packed, length, version) => ({ version, body: gunzipped(packed, length) }),
  },
  sizeOf: ({ body }) => body.length + 300,
};

/** As keptBodies' packing, for an entry that holds more than its body: the rest is v8.serialize'd beside it. */
export function bodyAsGzip<T extends KeptBody>(): Packing<T> {
  return {
    pack: (value) => ({
      packed: v8.serialize({ ...value, body: compressedOnce(value.body, 'gzip') }),
      length: value.body.length,
    }),
    unpack(packed, length) {
      const value = v8.deserialize(packed) as T;
      value.body = gunzipped(value.body, length);
      return value;
    },
  };
}

/**
 * A streamed body whose head is made per request and whose rest is named by the answer's ETag
 * (the menu: its head carries evaluated_at). Gzip allows a body of several members (RFC 1952
 * 2.2), so such a body is sent as the head compressed for this answer followed by the rest
 * compressed per tag and kept (sendSplit). Brotli has no such members: these bodies go as gzip.
 */
type SplitBody = Readable & { parts(): { head: Buffer; tail(): Buffer } };

const isSplit = (payload: Readable): payload is SplitBody =>
  typeof (payload as Partial<SplitBody>).parts === 'function';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The codings the request accepts, the heaviest first and br on a tie (RFC 9110 12.5.3, by
 * `negotiator`): a coding with q=0 is refused even when `*` accepts the others, which
 * @fastify/accept-negotiator (and so @fastify/compress) got wrong: `br;q=0, *` gave br.
 */
function acceptedCodings(header: string | string[] | undefined): Encoding[] {
  if (typeof header !== 'string') return [];
  const negotiator = new Negotiator({ headers: { 'accept-encoding': header } });
  return negotiator.encodings([...ENCODINGS], { preferred: [...ENCODINGS] }) as Encoding[];
}

function sendEncoded(reply: FastifyReply, body: Buffer, encoding: Encoding): Buffer {
  reply.header('content-encoding', encoding);
  reply.header('content-length', body.length);
  return body;
}

/** A split body as gzip: its head compressed for this answer, then its rest compressed per tag. */
const sendHeadAndRest = (reply: FastifyReply, head: Buffer, rest: Buffer): Buffer =>
  sendEncoded(reply, Buffer.concat([gzipSync(head), rest]), 'gzip');

export async function installCompression(app: FastifyInstance, splitTailBytes: number): Promise<void> {
  const tails =
    splitTailBytes > 0
      ? new LRUCache<string, { rest: Buffer; final: boolean }>({
          maxSize: splitTailBytes,
          sizeCalculation: (kept) => Math.max(1, kept.rest.length),
        })
      : undefined;
  function sendSplit(reply: FastifyReply, body: SplitBody, etag: string): Buffer {
    const { head, tail } = body.parts();
    body.destroy();
    const kept = tails?.get(etag);
    let rest = kept?.final ? kept.rest : undefined;
    splitReads.inc({ source: rest ? 'kept' : 'compressed' });
    if (!rest) {
      // Read once (most of a thousand restaurants' menus, over a budget that holds a few hundred):
      // at gzip's level 3, about twice as fast as its default for a quarter more bytes. Read again
      // while kept: compressed at the default level, kept for the reads that follow.
      rest = kept ? encode(tail(), 'gzip') : encode(tail(), 'gzip', FIRST_READ);
      tails?.set(etag, { rest, final: Boolean(kept) });
    }
    return sendHeadAndRest(reply, head, rest);
  }

  app.decorate('keptSplit', (request: FastifyRequest, reply: FastifyReply, head: () => Buffer) => {
    const etag = reply.getHeader('etag');
    if (typeof etag !== 'string') return undefined;
    const kept = tails?.get(etag);
    if (!kept?.final || !acceptedCodings(request.headers['accept-encoding']).includes('gzip'))
      return undefined;
    splitReads.inc({ source: 'kept' });
    return sendHeadAndRest(reply, head(), kept.rest);
  });

  // App hooks run before the plugin's route hooks: what this one encodes, the plugin passes on.
  app.addHook('onSend', async (request, reply, payload) => {
    const vary = reply.getHeader('vary');
    if (vary === undefined) reply.header('vary', 'accept-encoding');
    else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${vary}, accept-encoding`);
    if (reply.hasHeader('content-encoding')) return payload;
    const accepted = acceptedCodings(request.headers['accept-encoding']);
    const encoding = accepted[0] ?? null;
    // @fastify/compress (strings, bodies rendered once) is told the coding chosen here, so its own
    // reading of the header cannot pick one the request refused.
    if (request.headers['accept-encoding'] !== undefined)
      request.headers['accept-encoding'] = encoding ?? 'identity';
    if (payload instanceof Readable) {
      const length = Number(reply.getHeader('content-length'));
      if (!(length >= 0)) return payload;
      if (length < COMPRESS_MIN_BYTES) return collect(payload);
      const etag = reply.getHeader('etag');
      if (isSplit(payload) && typeof etag === 'string' && accepted.includes('gzip'))
        return sendSplit(reply, payload, etag);
      return encoding ? sendEncoded(reply, encode(await collect(payload), encoding), encoding) : payload;
    }
    if (!Buffer.isBuffer(payload) || payload.length < COMPRESS_MIN_BYTES || renderedOnce.has(payload))
      return payload;
    return encoding ? sendEncoded(reply, compressedOnce(payload, encoding), encoding) : payload;
  });
  // Answers only: request bodies are read as sent (the plugin would otherwise inflate them).
  app.addHook('onRoute', (route) => {
    route.decompress ??= false;
  });
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_MIN_BYTES,
    encodings: [...ENCODINGS],
    brotliOptions: BROTLI,
  });
}
