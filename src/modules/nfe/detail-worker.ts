// A detail-pool.ts worker: one provider body in, its mapped parts out, the invoice and protocol as
// UTF-8 in memory of their own (never a slice of Node's shared pool), moved to the event loop. It
// runs below the event loop's priority (a nice value per thread on Linux): busy cores serve it last.
import { setPriority } from 'node:os';
import { move, transferableSymbol, valueSymbol, workerData } from 'piscina';
import { releaseBuffer } from '../../lib/release-buffer.ts';
import { mapProviderBody } from './provider-mapping.ts';

if (process.platform === 'linux') setPriority(workerData.nice);

export default (body: Uint8Array) => {
  const { documentJson, ...parts } = mapProviderBody(body);
  releaseBuffer(body);
  const documentBytes = new TextEncoder().encode(documentJson);
  return move({ [transferableSymbol]: documentBytes.buffer, [valueSymbol]: { ...parts, documentBytes } });
};
