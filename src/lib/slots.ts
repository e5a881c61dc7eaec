// At most `limit` holders at once; the others wait in arrival order, each until its signal aborts.
// What bounds the memory of work whose size the caller does not choose (a provider's documents of
// up to 5 MiB, each held with its answer while it is mapped).

export type Slots = {
  /** Resolves with the slot's release once one is free; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<() => void>;
  /** Holders and waiters now (for tests and metrics). */
  readonly busy: number;
  readonly waiting: number;
};

export function createSlots(limit: number): Slots {
  let busy = 0;
  const queue: (() => void)[] = [];

  function release(): void {
    const next = queue.shift();
    if (next) next();
    else busy -= 1;
  }

  /** A release that works once, however often it is called. */
  function once(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  }

  return {
    get busy() {
      return busy;
    },
    get waiting() {
      return queue.length;
    },
    acquire(signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      if (busy < limit) {
        busy += 1;
        return Promise.resolve(once());
      }
      return new Promise((resolve, reject) => {
        // The slot passes straight from its holder to this waiter: busy stays the same.
        const grant = () => {
          signal.removeEventListener('abort', abort);
          resolve(once());
        };
        const abort = () => {
          queue.splice(queue.indexOf(grant), 1);
          reject(signal.reason);
        };
        queue.push(grant);
        signal.addEventListener('abort', abort, { once: true });
      });
    },
  };
}
