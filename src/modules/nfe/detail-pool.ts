// Where a provider body is parsed and mapped: here when small, in a worker thread when large, so
// that a 5 MiB document never holds the event loop. The pool is bounded (NFE_DETAIL_WORKERS) and
// starts workers on demand. A task that throws, or is still queued or running when the exchange's
// time runs out, rejects (the client answers 502); a worker stopped that way is replaced.
import { Piscina } from 'piscina';
import { type MappedProviderBody, mapProviderBody } from './provider-mapping.ts';

/** Bodies from this size on go to a worker (docs/nfe-detail.md has the measurements). */
export const WORKER_THRESHOLD_BYTES = 256 * 1024;
const WORKER_IDLE_MS = 60_000;
/** The workers' nice value: the event loop (0) is served first when the cores are busy. */
export const WORKER_NICE = 10;

export type DetailPool = {
  mapBody(body: Buffer, signal: AbortSignal): Promise<MappedProviderBody>;
  /** Tasks the workers finished (mapped or failed), and the workers alive. */
  stats(): { completed: number; threads: number };
  close(): Promise<void>;
};

export function createDetailPool(options: { workers: number }): DetailPool {
  const pool = new Piscina<Uint8Array, MappedProviderBody>({
    filename: new URL('./detail-worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.workers,
    idleTimeout: WORKER_IDLE_MS,
    workerData: { nice: WORKER_NICE },
  });
  return {
    async mapBody(body, signal) {
      if (body.length < WORKER_THRESHOLD_BYTES) return mapProviderBody(body);
      // The exchange's signal (its 15 s, queue included) stops a worker that outlives it.
      return pool.run(body, { signal });
    },
    stats: () => ({ completed: pool.completed, threads: pool.threads.length }),
    close: () => pool.destroy(),
  };
}
