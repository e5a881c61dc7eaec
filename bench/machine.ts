// The machine a run was measured on, and how busy it was: other processes share these cores, so
// every row carries the load average at its start; on a virtual machine the hypervisor may also
// give these cores' time to other guests (steal), which every row measures over its windows.
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';

export function describeMachine(database: string): string {
  const model = cpus()[0]?.model.trim() || 'unknown CPU';
  let mhz = '';
  try {
    const match = /^cpu MHz\s*:\s*([\d.]+)/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (match) mhz = ` at ${Math.round(Number(match[1]))} MHz`;
  } catch {}
  const memory = (totalmem() / 1024 ** 3).toFixed(1);
  return `${model}${mhz}, ${cpus().length} cores, ${memory} GiB memory, Node ${process.version}, ${database}`;
}

export const loadAverage = () => loadavg()[0];

export const formatLoad = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' / ');

/** The machine's CPU time so far, in ticks (/proc/stat): all of it, and what the hypervisor stole. */
export type CpuClock = { steal: number; total: number };

export function cpuClock(): CpuClock {
  try {
    const fields = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    // user nice system idle iowait irq softirq steal
    return { steal: fields[7] ?? 0, total: fields.reduce((sum, n) => sum + n, 0) };
  } catch {
    return { steal: 0, total: 0 };
  }
}

/** Share of the machine's CPU time stolen between two readings (undefined where /proc/stat is not). */
export function stealShare(spans: [CpuClock, CpuClock][]): number | undefined {
  let steal = 0;
  let total = 0;
  for (const [from, to] of spans) {
    steal += to.steal - from.steal;
    total += to.total - from.total;
  }
  return total > 0 ? steal / total : undefined;
}
