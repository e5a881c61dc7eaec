// A node:test reporter: after the run, the ten test files that took longest (the sum of their
// top-level tests, which run one after another within a file). `npm test` uses it beside the spec
// reporter; .ci/run prints its lines after each run.
import { relative } from 'node:path';

type Event = {
  type: string;
  data: { file?: string; nesting?: number; name?: string; details?: { duration_ms?: number } };
};

const SHOWN = 10;

export default async function* slowestFiles(source: AsyncIterable<Event>) {
  const durations = new Map<string, number>();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file || nesting !== 0) continue;
    durations.set(file, (durations.get(file) ?? 0) + (details?.duration_ms ?? 0));
  }
  const slowest = [...durations].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  yield `\nslowest test files (${slowest.length} of ${durations.size}):\n`;
  for (const [file, ms] of slowest)
    yield `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${relative(process.cwd(), file)}\n`;
}
