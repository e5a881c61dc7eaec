// Where a provider body is parsed and mapped: here when small, in a worker thread when large, so
// that a 5 MiB document never holds the event loop. The pool is bounded (NFE_DETAIL_WORKERS) and
// starts workers on demand; a body and its mapped invoice travel as moved memory, never copied. A
// task that throws, or is still queued or running when the exchange's time runs out, rejects (the
// client answers 502); a worker stopped that way is replaced.
import { setFlagsFromString } from 'node:v8';
import { Piscina } from 'piscina';
import { type MappedProviderBody, mapProviderBody } from './provider-mapping.ts';

/** Bodies from this size on go to a worker (docs/nfe-detail.md has the measurements). */
export const WORKER_THRESHOLD_BYTES = 256 * 1024;
const WORKER_IDLE_MS = 60_000;
/** The workers' nice value: the event loop (0) is served first when the cores are busy. */
export const WORKER_NICE = 10;
/** The workers' semi-space, MB: a large document's parse tree dies young (docs/nfe-detail.md). */
const WORKER_SEMI_SPACE_MB = 16;

export type DetailPool = {
  /** With `move`, a large body's memory goes to the worker: the caller must not read it again. */
  mapBody(body: Buffer, signal: AbortSignal, move?: boolean): Promise<MappedProviderBody>;
  /** Tasks the workers finished (mapped or failed), and the workers alive. */
  stats(): { completed: number; threads: number };
  close(): Promise<void>;
};

type WorkerAnswer = Omit<MappedProviderBody, 'documentJson'> & { documentBytes: Uint8Array };

/** The worker's answer with its bytes as they came; their text is decoded only if read. */
const fromWorker = ({ documentBytes, ...parts }: WorkerAnswer): MappedProviderBody =>
  Object.defineProperties(parts, {
    documentBytes: { value: documentBytes },
    documentJson: { enumerable: true, get: () => new TextDecoder().decode(documentBytes) },
  }) as MappedProviderBody;

export function createDetailPool(options: { workers: number }): DetailPool {
  // V8 reads the flag when an isolate starts, over a Worker's resourceLimits: the workers' alone.
  setFlagsFromString(`--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`);
  const pool = new Piscina<Uint8Array, WorkerAnswer>({
    filename: new URL('./detail-worker.ts', import.meta.url).href,
    minThreads: 0,
    maxThreads: options.workers,
    idleTimeout: WORKER_IDLE_MS,
    workerData: { nice: WORKER_NICE },
  });
  return {
    async mapBody(body, signal, move = false) {
      if (body.length < WORKER_THRESHOLD_BYTES) return mapProviderBody(body);
      // The exchange's signal (its 15 s, queue included) stops a worker that outlives it.
      const transferList = move ? [body.buffer as ArrayBuffer] : undefined;
      return fromWorker(await pool.run(body, { signal, transferList }));
    },
    stats: () => ({ completed: pool.completed, threads: pool.threads.length }),
    close: () => pool.destroy(),
  };
}
