// One row of the table: the route under load at 32 connections (after a warm-up), then one client
// in sequence; for a read, the node:http ceiling serving the same bytes; for the NF-e detail, the
// fiscal simulator alone. The server's peak memory and CPU are read while it runs.
import type { Helper } from './child-process.ts';
import type { DbTime } from './explain-probe.ts';
import {
  alternating,
  type BenchRequest,
  fetchOnce,
  type Latency,
  sequential,
  type Throughput,
  throughput,
} from './load.ts';
import { loadAverage } from './machine.ts';
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
  db: DbTime;
  cpuMsPerRequest: number;
  rssPeak: number;
  note?: string;
};

export type Bench = {
  server: LaunchedServer;
  baseline: Helper;
  simulator: Helper;
  providerRequest: BenchRequest;
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
  const background = scenario.background?.(ctx);
  await throughput(server.url, request, connections, options.warmup);
  await settle(bench);
  const cpuBefore = server.cpuMs();
  const measured = await throughput(server.url, request, connections, options.seconds);
  // The requests in flight when the window closed are still served: their CPU counts too.
  await settle(bench);
  const cpuMsPerRequest = (server.cpuMs() - cpuBefore) / (measured.requests + connections);
  // The NF-e detail's one client takes turns with the simulator alone (load.ts, alternating).
  const [latency, provider] = scenario.providerAddsAtMost
    ? await alternating(
        [
          { url: server.url, request },
          { url: bench.simulator.url, request: bench.providerRequest },
        ],
        options.latencySeconds * 2,
      )
    : [await sequential(server.url, request, options.latencySeconds)];
  const note = background?.();
  const rssPeak = memory();
  let ceiling: Throughput | undefined;
  if (scenario.read) {
    await throughput(bench.baseline.url, request, connections, 1);
    ceiling = await throughput(bench.baseline.url, request, connections, options.seconds);
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
    db,
    cpuMsPerRequest,
    rssPeak,
    note,
  };
}
