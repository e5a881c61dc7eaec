// Response compression: @fastify/compress negotiates br or gzip from Accept-Encoding for JSON
// answers of 1 KB or more (a 164 KB menu is about 15 KB gzipped). Smaller answers are sent as
// they are: compressing them saves less than the header and the work cost. Every answer with a
// body says `Vary: accept-encoding`, so a shared cache never hands a compressed body to a client
// that did not ask for one, nor an uncompressed one to a client that did.
import { Readable } from 'node:stream';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/** Bodies under this many bytes are never compressed. */
export const COMPRESS_MIN_BYTES = 1024;

/** Reads a short stream (the menu's, whose length is known ahead) into one buffer. */
async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function installCompression(app: FastifyInstance): Promise<void> {
  // Runs before the plugin's own hook (app hooks precede route hooks): a stream would be
  // compressed whatever its length, so one known to be short becomes a buffer, which the plugin
  // measures against the threshold.
  app.addHook('onSend', async (_request, reply, payload) => {
    const vary = reply.getHeader('vary');
    if (vary === undefined) reply.header('vary', 'accept-encoding');
    else if (!/accept-encoding/i.test(String(vary))) reply.header('vary', `${vary}, accept-encoding`);
    const length = Number(reply.getHeader('content-length'));
    if (payload instanceof Readable && length < COMPRESS_MIN_BYTES) return collect(payload);
    return payload;
  });
  await app.register(compress, {
    global: true,
    threshold: COMPRESS_MIN_BYTES,
    encodings: ['br', 'gzip'],
  });
}
