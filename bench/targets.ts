// The targets of issue 12, checked on each row: requests per second against the node:http
// ceiling (32 connections), p99 of one client, what the NF-e detail adds to the provider's own
// time, and the server's memory. Scaling rows show growth and are held to memory only.
import type { Row } from './measure-scenario.ts';

export const RSS_TARGET_MB = 300;

export type Check = { target: string; pass: boolean };

export const ratioOf = (row: Row) => (row.ceiling ? row.server.rps / row.ceiling.rps : undefined);
export const providerAdds = (row: Row) => (row.provider ? row.latency.p50 - row.provider.p50 : undefined);

export function checks(row: Row): Check[] {
  const { scenario } = row;
  const result: Check[] = [];
  const ratio = ratioOf(row);
  if (scenario.ratioTarget !== undefined && ratio !== undefined) {
    result.push({
      target: `≥ ${scenario.ratioTarget * 100}% of node:http`,
      pass: ratio >= scenario.ratioTarget,
    });
  }
  if (scenario.p99Target !== undefined) {
    result.push({ target: `p99 < ${scenario.p99Target} ms`, pass: row.latency.p99 < scenario.p99Target });
  }
  const adds = providerAdds(row);
  if (scenario.providerAddsAtMost !== undefined && adds !== undefined) {
    result.push({
      target: `adds < ${scenario.providerAddsAtMost} ms to the provider`,
      pass: adds < scenario.providerAddsAtMost,
    });
  }
  if (scenario.p99BesideAtMost !== undefined && row.alone) {
    const bound = row.alone.p99 * scenario.p99BesideAtMost;
    result.push({
      target: `p99 ≤ ${scenario.p99BesideAtMost}× its p99 alone (${row.alone.p99.toFixed(2)} ms)`,
      pass: row.latency.p99 <= bound,
    });
  }
  result.push({ target: `RSS < ${RSS_TARGET_MB} MB`, pass: row.rssPeak < RSS_TARGET_MB });
  const failed = row.server.failures + row.latency.failures + (row.ceiling?.failures ?? 0);
  if (failed) result.push({ target: `${failed} non-2xx or failed requests`, pass: false });
  return result;
}
