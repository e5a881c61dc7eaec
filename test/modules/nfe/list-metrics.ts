// The list cache's read counter (list-cache.ts), for tests that check where a list came from.
import { register } from 'prom-client';

/** Lists answered from memory so far, on every instance in this process. */
export async function listsFromMemory(): Promise<number> {
  const metric = await register.getSingleMetric('nfe_list_reads_total')?.get();
  return metric?.values.find((v) => v.labels.source === 'memory')?.value ?? 0;
}
