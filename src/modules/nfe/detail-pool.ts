// Where a provider body is parsed and mapped: here when it is small, in a worker thread when it
// is large, so that a 5 MiB document never holds the event loop (about 150 ms of CPU). The pool
// is bounded (NFE_DETAIL_WORKERS), starts its workers on demand and lets idle ones go; a worker
// that throws, dies or runs past its time limit rejects its task (the client answers 502) and
// is replaced for the next one.
import { Piscina } from 'piscina';
import { type MappedProviderBody, mapProviderBody } from './provider-mapping.ts';

/** Bodies from this size on go to a worker (docs/nfe-detail.md has the measurements). */
export const WORKER_THRESHOLD_BYTES = 256 * 1024;
/** A 5 MiB document maps in well under a second; past this something is wrong with it. */
export const WORKER_TIME_LIMIT_MS = 5_000;
const WORKER_IDLE_MS = 60_000;
/** Heap of one worker: a 5 MiB document needs about a tenth of it. */
const WORKER_HEAP_MB = 512;

export type DetailPoolOptions = {
  workers: number;
  thresholdBytes?: number;
  timeLimitMs?: number;
  heapMb?: number;
};

export type DetailPool = {
  mapBody(body: Buffer, signal: AbortSignal): Promise<MappedProviderBody>;
  close(): Promise<void>;
};

export function createDetailPool(options: DetailPoolOptions): DetailPool {
  const threshold = options.thresholdBytes ?? WORKER_THRESHOLD_BYTES;
  const timeLimit = options.timeLimitMs ?? WORKER_TIME_LIMIT_MS;
  const pool = new Piscina<Uint8Array, MappedProviderBody>({
    filename: new URL('./detail-worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.workers,
    idleTimeout: WORKER_IDLE_MS,
    resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? WORKER_HEAP_MB },
  });
  return {
    async mapBody(body, signal) {
      if (body.length < threshold) return mapProviderBody(body);
      return pool.run(body, { signal: AbortSignal.any([signal, AbortSignal.timeout(timeLimit)]) });
    },
    close: () => pool.destroy(),
  };
}
