// bench/results/<name>.md: the machine, the load, one row per route with its ceiling and targets,
// the scaling table, and how each number was measured.
import type { Row } from './measure-scenario.ts';
import { NODE_FLAGS, START_ENV } from './server-launcher.ts';
import { checks, providerAdds, ratioOf } from './targets.ts';

export type RunInfo = {
  started: Date;
  command: string;
  machine: string;
  loadStart: string;
  loadEnd: string;
  /** Share of the machine's CPU time the hypervisor stole over the whole run. */
  steal?: number;
  seeding: string;
  peakRss: number;
  windows: string;
  chart: string;
};

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
export const pct = (n: number | undefined) => (n === undefined ? '—' : `${Math.round(n * 100)}%`);
const kib = (n: number | undefined) =>
  n === undefined ? '—' : n < 10240 ? `${n} B` : `${int(n / 1024)} KiB`;

/** Above this share of stolen CPU, a miss says how much the hypervisor took during the row. */
const STEAL_WORTH_SAYING = 0.05;

function verdict(row: Row): string {
  const all = checks(row);
  const missed = all.filter((c) => !c.pass).map((c) => c.target);
  if (!missed.length) return `pass (${all.map((c) => c.target).join('; ')})`;
  const stolen = Math.max(row.steal.load ?? 0, row.steal.oneClient ?? 0);
  const context =
    stolen >= STEAL_WORTH_SAYING ? ` (with ${pct(stolen)} of the CPU stolen in a window of the row)` : '';
  return `**miss**: ${missed.join('; ')}${context}`;
}

function routeLine(row: Row): string {
  const { server, latency, db, ceiling } = row;
  return [
    `${row.scenario.label} <sub>${row.scenario.id}</sub>`,
    row.scenario.dataset.name,
    kib(row.bytes),
    row.connections,
    int(server.rps),
    `${ms(server.p50)} / ${ms(server.p99)}`,
    ceiling ? int(ceiling.rps) : '—',
    pct(ratioOf(row)),
    `${ms(latency.p50)} / ${ms(latency.p99)}`,
    `${ms(db.ms)} (${db.queries})`,
    pct(db.ms / latency.p50),
    ms(row.cpuMsPerRequest),
    int(row.rssPeak),
    row.load.toFixed(1),
    `${pct(row.steal.load)} / ${pct(row.steal.oneClient)}`,
    verdict(row),
  ].join(' | ');
}

const HEADER = [
  '| route | data | body | conn. | req/s | p50 / p99 ms | node:http req/s | ratio | p50 / p99 ms (1 client) | DB ms (statements) | DB share | CPU ms/req | RSS MB | load | steal | targets |',
  '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
];

function scalingTable(rows: Row[]): string[] {
  const labels = [...new Set(rows.filter((r) => r.scenario.scale).map((r) => r.scenario.label))];
  if (!labels.length) return [];
  const order = { small: 0, undefined: 1, large: 2 };
  const lines = labels.flatMap((label) =>
    rows
      .filter((r) => r.scenario.label === label)
      .sort((a, b) => order[`${a.scenario.scale}`] - order[`${b.scenario.scale}`])
      .map((r) => routeLine(r)),
  );
  return [
    '## Scaling: the same routes at 10x less and 10x more data',
    '',
    ...HEADER,
    ...lines.map((l) => `| ${l} |`),
    '',
  ];
}

export function renderMarkdown(rows: Row[], info: RunInfo): string {
  const nominal = rows.filter((r) => !r.scenario.scale);
  const misses = nominal.filter((r) => checks(r).some((c) => !c.pass));
  const notes = rows.flatMap((r) => {
    const adds = providerAdds(r);
    const parts = [
      r.note,
      adds === undefined
        ? undefined
        : `the simulator alone answers in p50 ${ms(r.provider!.p50)} ms / p99 ${ms(r.provider!.p99)} ms (one client taking turns with the route: each simulator request right after a detail request), so the route adds ${ms(adds)} ms at p50`,
    ];
    const text = parts.filter(Boolean).join('; ');
    return text ? [`- ${r.scenario.id}: ${text}.`] : [];
  });
  return [
    '# Benchmark: every hot route against its ceiling',
    '',
    `Run ${info.started.toISOString().slice(0, 16).replace('T', ' ')} UTC: \`${info.command}\`; ${info.windows}.`,
    '',
    `- Machine: ${info.machine}.`,
    `- Load average (1 / 5 / 15 min): ${info.loadStart} at the start, ${info.loadEnd} at the end (other work shares these cores: the \`load\` column is the 1-minute average when each row started).`,
    ...(info.steal === undefined
      ? []
      : [
          `- CPU steal: the hypervisor gave ${pct(info.steal)} of this machine's CPU time to other guests over the run (the \`steal\` column: in the row's 32-connection windows / in its one-client window). A request that waits for a stolen core is slower for reasons outside the service; the p99 of one client feels it first.`,
        ]),
    `- Server: \`${[...Object.entries(START_ENV).map(([k, v]) => `${k}=${v}`), 'node', ...NODE_FLAGS, 'src/main.ts'].join(' ')}\` in its own process (the settings and V8 flags of \`npm start\`; LOG_LEVEL=warn); peak RSS (VmHWM) over the whole run ${int(info.peakRss)} MB.`,
    `- Data: ${info.seeding}.`,
    `- Targets${info.machine.includes('PGlite') ? ' (set for PostgreSQL; shown here for comparison)' : ''}: ${nominal.length - misses.length} of ${nominal.length} rows pass${misses.length ? `; missed: ${misses.map((r) => r.scenario.id).join(', ')}` : ''}.`,
    '',
    `![ratios and p99](${info.chart})`,
    '',
    '## Routes',
    '',
    ...HEADER,
    ...nominal.map((r) => `| ${routeLine(r)} |`),
    '',
    ...scalingTable(rows),
    ...(notes.length ? ['## Notes', '', ...notes, ''] : []),
    '## How each number is measured',
    '',
    "- **req/s, p50 / p99**: autocannon on loopback with `conn.` connections (32; 4 for the large scaling rows, whose requests take seconds), after a warm-up window; latency of every response, pooled over the row's windows.",
    "- **node:http req/s, ratio**: a plain `node:http` server (its own process) answers the bytes the route answered, from memory, under the same load; ratio = route req/s ÷ that ceiling. A row held to a ratio measures the two in turns (one-second windows: route, ceiling, route…; the server settles between them), so that a change in the machine's speed during the row weighs on both; other reads measure the route, then the ceiling.",
    '- **p50 / p99 (1 client)**: one client sending the next request when the previous one answered, timed in microseconds, in a process of its own (so that the garbage collections of the bench itself are not timed): the service time without queueing. The p99 targets apply to it (at 32 connections p99 is mostly queueing: 32 ÷ req/s).',
    '- **DB ms (statements)**: every SQL statement the route runs for one request once warm (the request is sent, then again after 300 ms for the work it started to end), taken from the running app (in the bench process, before the load), each preceded by `EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON)` of the same statement and parameters in a rolled-back savepoint; Planning Time + Execution Time, median of 3, summed. Round trips, BEGIN/COMMIT and driver time are not in it; the planning of a prepared statement (src/db/prepared.ts), which the server pays once per connection, is. **DB share** = DB ms ÷ one-client p50; over 100% where a route runs statements at the same time (cash flows: totals and page) or plans a prepared statement (one product: the token check).',
    '- **CPU ms/req**: user + system CPU of the server process from the start of the 32-connection window until it is idle again ÷ (requests answered in the window + the requests still in flight at its end). **RSS MB**: peak VmRSS of the server while the row ran (sampled every 100 ms).',
    "- **steal**: the share of the machine's CPU time (/proc/stat, all cores) that the hypervisor gave to other guests during the row's 32-connection windows, and during its one-client window.",
    '',
  ].join('\n');
}
