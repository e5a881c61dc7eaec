// The periodic purge of events and webhook deliveries older than EVENTS_RETENTION_DAYS, started
// by the server (src/server.ts). Every instance may run it: a delete of what is already gone is
// harmless. A failed run is logged and tried again at the next tick. stop() ends a run in flight
// after its current statement and waits for it, so none of it reaches a database closed next.
import type { Db } from '../../db/database.ts';
import { purgeEvents } from './feed-repository.ts';

type PurgeJob = { stop(): Promise<void> };

export function startEventPurge(
  db: Db,
  retentionDays: number,
  log: (err: unknown) => void,
  intervalMs = 3_600_000,
): PurgeJob {
  const stopping = new AbortController();
  let running: Promise<unknown> | undefined;
  const run = () => {
    running ??= purgeEvents(db, retentionDays, undefined, stopping.signal)
      .catch(log)
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, 1_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      stopping.abort();
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
