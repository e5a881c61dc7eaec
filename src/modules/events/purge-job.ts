// The periodic purge of events and webhook deliveries older than EVENTS_RETENTION_DAYS, started
// by the server (src/server.ts). Every instance may run it: a delete of what is already gone is
// harmless. A failed run is logged and tried again at the next tick.
import type { Db } from '../../db/database.ts';
import { purgeEvents } from './feed-repository.ts';

type PurgeJob = { stop(): void };

export function startEventPurge(
  db: Db,
  retentionDays: number,
  log: (err: unknown) => void,
  intervalMs = 3_600_000,
): PurgeJob {
  const run = () => purgeEvents(db, retentionDays).catch(log);
  const first = setTimeout(run, 1_000);
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
