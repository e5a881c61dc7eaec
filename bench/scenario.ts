// What a scenario is: a request (built once per phase, so counters and token pools are its own),
// the data set it reads, and the targets its row is held to.
import type { Credential } from './credentials.ts';
import type { Dataset } from './datasets.ts';
import type { BenchRequest } from './load.ts';

export type ScenarioContext = {
  credential(restaurantId: number): Credential;
  /** One request to the app being measured (the server, or the probe's in-process app). */
  send(request: BenchRequest): Promise<string>;
  /** One request to the server whose answer is read and dropped (load.ts drainOnce): background load. */
  drain?(request: BenchRequest): Promise<void>;
};

export type Scenario = {
  id: string;
  label: string;
  dataset: Dataset;
  /** Data sets its background reads besides its own. */
  alsoReads?: Dataset[];
  /** Scaling rows repeat a nominal row at 10x less and 10x more data; they carry no targets. */
  scale?: 'small' | 'large';
  /** Connections of its load windows when not the run's (32). */
  connections?: number;
  /** Reads get a node:http ceiling serving the same bytes. */
  read: boolean;
  /** Least share of the node:http ceiling's requests per second, at 32 connections. */
  ratioTarget?: number;
  /** p99 of one client, in ms; NF-e detail is held to the provider's time instead. */
  p99Target?: number;
  /** The NF-e detail: also time the fiscal simulator alone, the route may add at most this (ms). */
  providerAddsAtMost?: number;
  /** The access key whose document the simulator serves for that (default: the 1 MiB note's). */
  providerKey?: string;
  /**
   * With a background: one client's p99 is also measured before the background starts, and the p99
   * beside it may be at most this many times that one (both in the same run).
   */
  p99BesideAtMost?: number;
  request(ctx: ScenarioContext): Promise<BenchRequest>;
  /** Work running beside the measured windows (catalog writes); returns its stop, which counts it. */
  background?(ctx: ScenarioContext): () => string;
};

export const P99_TARGET_MS = 50;

/**
 * A scaling row: no targets, and the large ones at 4 connections. At 32, requests costing a second
 * or more leave a backlog the server would still be serving a minute after the window.
 */
export const scaling = (scale: Scenario['scale']) =>
  scale === 'large' ? { scale, connections: 4 } : { scale };

export function get(path: string, credential: Credential): BenchRequest {
  return { method: 'GET', path, headers: { authorization: credential.authorization } };
}

/** Numbers every write of the run (probe and load alike), so each one changes something. */
let writes = 0;

export function json(
  method: 'PUT' | 'PATCH',
  credential: Credential,
  next: (n: number) => { path: string; body: unknown },
): BenchRequest {
  return {
    method,
    path: next(0).path,
    headers: { authorization: credential.authorization, 'content-type': 'application/json' },
    vary() {
      const { path, body } = next(writes++);
      return { path, body: JSON.stringify(body) };
    },
  };
}
