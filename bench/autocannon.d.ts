// The part of autocannon's API the bench uses (the package ships no type declarations).
declare module 'autocannon' {
  type Histogram = {
    average: number;
    mean: number;
    min: number;
    max: number;
    p50: number;
    p99: number;
    total: number;
  };
  type Context = Record<string, unknown>;
  export type Request = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    setupRequest?: (request: Request, context: Context) => Request;
    onResponse?: (status: number, body: string, context: Context, headers: Record<string, string>) => void;
  };
  export type Options = {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: Request[];
  };
  export type Result = {
    latency: Histogram;
    requests: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  };
  /** A running window: a promise of its result that also emits each response. */
  export type Run = Promise<Result> & {
    on(
      event: 'response',
      listener: (client: unknown, status: number, bytes: number, responseTimeMs: number) => void,
    ): Run;
  };
  export default function autocannon(options: Options): Run;
}
