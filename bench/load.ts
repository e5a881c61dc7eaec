// The two measurements of a scenario: throughput (autocannon, many connections, for a fixed
// window) and latency (one client sending the next request when the previous answered, timed to
// the microsecond: autocannon's latency histogram counts whole milliseconds).
import { fork } from 'node:child_process';
import { Agent, request as httpRequest } from 'node:http';
import autocannon from 'autocannon';

export type BenchRequest = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  /** A new path and body for every request (writes change something each time). */
  vary?: () => { path: string; body?: string };
  /** Sees every response (the refresh scenario takes each new refresh token from it). */
  onResponse?: (status: number, body: string) => void;
};

export type Throughput = { rps: number; p50: number; p99: number; requests: number; failures: number };
export type Latency = { p50: number; p99: number; samples: number; failures: number };

/** One autocannon window: what it answered, in how long, and every response's time (ms). */
export type Window = { requests: number; failures: number; seconds: number; times: number[] };

export async function window(
  url: string,
  request: BenchRequest,
  connections: number,
  seconds: number,
): Promise<Window> {
  const { vary, onResponse, ...fixed } = request;
  const times: number[] = [];
  const run = autocannon({
    url,
    connections,
    duration: seconds,
    timeout: 30,
    requests: [
      {
        ...fixed,
        ...(vary ? { setupRequest: (req) => ({ ...req, ...vary() }) } : {}),
        ...(onResponse ? { onResponse: (status, text) => onResponse(status, text) } : {}),
      },
    ],
  });
  run.on('response', (_client, _status, _bytes, ms) => times.push(ms));
  const result = await run;
  return {
    requests: result.requests.total,
    failures: result.non2xx + result.errors + result.timeouts,
    seconds: result.duration,
    times,
  };
}

/** Windows of one target taken together: requests per second over their time, exact percentiles. */
export function summarize(windows: Window[]): Throughput {
  const times = windows.flatMap((w) => w.times).sort((a, b) => a - b);
  const requests = windows.reduce((sum, w) => sum + w.requests, 0);
  const seconds = windows.reduce((sum, w) => sum + w.seconds, 0);
  return {
    rps: requests / seconds,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    requests,
    failures: windows.reduce((sum, w) => sum + w.failures, 0),
  };
}

export async function throughput(
  url: string,
  request: BenchRequest,
  connections: number,
  seconds: number,
): Promise<Throughput> {
  return summarize([await window(url, request, connections, seconds)]);
}

/** The path and body of the next request. */
export const nextOf = (request: BenchRequest) => request.vary?.() ?? { path: request.path, body: undefined };

export function percentile(sorted: number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] : Number.NaN;
}

export async function sequential(url: string, request: BenchRequest, seconds: number): Promise<Latency> {
  const [latency] = await alternating([{ url, request }], seconds);
  return latency;
}

/**
 * One client taking turns over several targets (one request to each, then again) for `seconds`:
 * each target's latency, all measured under the same conditions. A route and what it calls (the
 * NF-e detail and the fiscal simulator alone) are compared this way, so that a machine whose speed
 * drifts during the run does not favour the one measured in the quieter window. The client runs in
 * a process of its own (latency-client.ts says why); paths, bodies and responses stay here.
 */
export async function alternating(
  targets: { url: string; request: BenchRequest }[],
  seconds: number,
): Promise<Latency[]> {
  const child = fork(new URL('./latency-client.ts', import.meta.url), [], { stdio: 'inherit' });
  type Answered = { target: number; status: number; text?: string };
  const seen = (answered?: Answered) => {
    if (answered) targets[answered.target].request.onResponse?.(answered.status, answered.text ?? '');
  };
  // On an error too, the client is let go (it exits once disconnected), before the bench goes on.
  const result = await new Promise<{ samples: number[][]; failures: number[] }>((resolve, reject) => {
    child.on(
      'message',
      (
        message: { ask?: number; answered?: Answered; done?: true; error?: string } & {
          samples: number[][];
          failures: number[];
        },
      ) => {
        if (message.error) return reject(new Error(message.error));
        seen(message.answered);
        if (message.done) resolve(message);
        else child.send(nextOf(targets[message.ask as number].request));
      },
    );
    child.once('exit', (code) => reject(new Error(`the latency client exited (${code})`)));
    child.send({
      seconds,
      targets: targets.map(({ url, request }) => ({
        url,
        method: request.method,
        headers: request.headers,
        text: request.onResponse !== undefined,
      })),
    });
  }).finally(() => {
    child.removeAllListeners('exit');
    if (child.connected) child.disconnect();
  });
  const { samples, failures } = result;
  return samples.map((list, i) => {
    list.sort((a, b) => a - b);
    return {
      p50: percentile(list, 0.5),
      p99: percentile(list, 0.99),
      samples: list.length,
      failures: failures[i],
    };
  });
}

/** One request, for the bytes a route answers (the ceiling serves them) and to check it works. */
export async function fetchOnce(url: string, request: BenchRequest) {
  const next = nextOf(request);
  const res = await fetch(`${url}${next.path}`, {
    method: request.method,
    headers: request.headers,
    body: next.body,
  });
  const body = Buffer.from(await res.arrayBuffer());
  if (!res.ok)
    throw new Error(`${request.method} ${next.path}: ${res.status} ${body.toString().slice(0, 300)}`);
  request.onResponse?.(res.status, body.toString());
  return { body, type: res.headers.get('content-type') ?? 'application/json' };
}

const drainAgent = new Agent({ keepAlive: true });

/**
 * One request of background load, its answer read to the end and dropped: nothing inflated or
 * turned into text on the cores the server is measured on. It asks for gzip as fetch does, so
 * the server does the same work as for fetchOnce.
 */
export function drainOnce(url: string, request: BenchRequest): Promise<void> {
  const next = nextOf(request);
  const headers = { 'accept-encoding': 'gzip, deflate', ...request.headers };
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${next.path}`, { method: request.method, headers, agent: drainAgent });
    req.on('response', (res) => {
      const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) <= 299;
      res.resume().on('error', reject);
      res.on('end', () => (ok ? resolve() : reject(new Error(`${next.path}: ${res.statusCode}`))));
    });
    req.on('error', reject).end(next.body);
  });
}
