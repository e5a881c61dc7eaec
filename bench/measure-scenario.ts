// One row of the table: the route under load at 32 connections (after a warm-up), then one client
// in sequence; for a read, the node:http ceiling serving the same bytes; for the NF-e detail, the
// fiscal simulator alone. The server's peak memory and CPU are read while it runs, and the share
// of the machine's time the hypervisor stole during the windows.
//
// A row held to a ratio takes the route and its ceiling in turns, one-second windows of each, so
// that a machine whose speed drifts (steal comes and goes by the second on a shared VM) weighs on
// both alike; the other reads measure the route's window, then the ceiling's.
import type { Helper } from './child-process.ts';
import type { DbTime } from './explain-probe.ts';
import {
  alternating,
  type BenchRequest,
  fetchOnce,
  type Latency,
  sequential,
  summarize,
  type Throughput,
  throughput,
  type Window,
  window,
} from './load.ts';
import { type CpuClock, cpuClock, loadAverage, stealShare } from './machine.ts';
import type { Options } from './options.ts';
import type { Scenario, ScenarioContext } from './scenario.ts';
import type { LaunchedServer } from './server-launcher.ts';

export type Row = {
  scenario: Scenario;
  connections: number;
  load: number;
  bytes?: number;
  server: Throughput;
  latency: Latency;
  ceiling?: Throughput;
  provider?: Latency;
  /** One client before the background started (rows with p99BesideAtMost). */
  alone?: Latency;
  db: DbTime;
  cpuMsPerRequest: number;
  rssPeak: number;
  /** Share of the machine's CPU time stolen by the hypervisor: in the 32-connection windows, with one client. */
  steal: { load?: number; oneClient?: number };
  note?: string;
};

export type Bench = {
  server: LaunchedServer;
  baseline: Helper;
  simulator: Helper;
  providerRequest(accessKey?: string): BenchRequest;
  ctx: ScenarioContext;
  options: Options;
  /** Statements the database is still running for the server (PostgreSQL; PGlite's are the server's CPU). */
  databaseBusy(): Promise<boolean>;
};

function watchMemory(server: LaunchedServer): () => number {
  let peak = server.memory().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, server.memory().rss);
  }, 100);
  return () => {
    clearInterval(timer);
    return Math.max(peak, server.memory().rss);
  };
}

/** Waits until requests left in flight by a window are served: the server's CPU and the database turn quiet. */
async function settle(bench: Bench): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let before = bench.server.cpuMs(); Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = bench.server.cpuMs();
    if (now - before <= 20 && !(await bench.databaseBusy())) return;
    before = now;
  }
}

export async function measureScenario(scenario: Scenario, db: DbTime, bench: Bench): Promise<Row> {
  const { server, options, ctx } = bench;
  const connections = scenario.connections ?? options.connections;
  const load = loadAverage();
  const request = await scenario.request(ctx);
  let bytes: number | undefined;
  if (scenario.read) {
    const { body, type } = await fetchOnce(server.url, request);
    bytes = body.length;
    await bench.baseline.ask({ path: request.path, body, type });
  }
  const memory = watchMemory(server);
  const alone =
    scenario.p99BesideAtMost === undefined
      ? undefined
      : await sequential(server.url, request, options.latencySeconds);
  const background = scenario.background?.(ctx);
  await throughput(server.url, request, connections, options.warmup);
  if (scenario.read) await throughput(bench.baseline.url, request, connections, 1);
  await settle(bench);
  const slices = scenario.ratioTarget === undefined ? 1 : Math.max(1, Math.round(options.seconds));
  const served: Window[] = [];
  const answered: Window[] = [];
  const loadSpans: [CpuClock, CpuClock][] = [];
  let cpuMs = 0;
  for (let slice = 0; slice < slices; slice++) {
    const start = cpuClock();
    const cpuBefore = server.cpuMs();
    served.push(await window(server.url, request, connections, options.seconds / slices));
    // The requests in flight when the window closed are still served: their CPU counts too.
    await settle(bench);
    cpuMs += server.cpuMs() - cpuBefore;
    if (slices > 1)
      answered.push(await window(bench.baseline.url, request, connections, options.seconds / slices));
    loadSpans.push([start, cpuClock()]);
  }
  const measured = summarize(served);
  const cpuMsPerRequest = cpuMs / (measured.requests + connections * slices);
  // The NF-e detail's one client takes turns with the simulator alone (load.ts, alternating).
  const oneClient = cpuClock();
  const [latency, provider] = scenario.providerAddsAtMost
    ? await alternating(
        [
          { url: server.url, request },
          { url: bench.simulator.url, request: bench.providerRequest(scenario.providerKey) },
        ],
        options.latencySeconds * 2,
      )
    : [await sequential(server.url, request, options.latencySeconds)];
  const steal = { load: stealShare(loadSpans), oneClient: stealShare([[oneClient, cpuClock()]]) };
  const note = background?.();
  const rssPeak = memory();
  let ceiling: Throughput | undefined;
  if (slices > 1) ceiling = summarize(answered);
  else if (scenario.read) {
    const start = cpuClock();
    ceiling = await throughput(bench.baseline.url, request, connections, options.seconds);
    loadSpans.push([start, cpuClock()]);
    steal.load = stealShare(loadSpans);
  }
  return {
    scenario,
    connections,
    load,
    bytes,
    server: measured,
    latency,
    ceiling,
    provider,
    alone,
    db,
    cpuMsPerRequest,
    rssPeak,
    steal,
    note,
  };
}
