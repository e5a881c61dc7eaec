// The machine a run was measured on, and how busy it was: other processes share these cores, so
// every row carries the load average at its start.
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
